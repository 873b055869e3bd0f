package remote

import (
	"context"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
)

// Ran tells the parent's bus observers where a child runs: published
// when what a worker did for it first arrives. Attempt counts the
// deliveries of its job: above 1 when a worker before this one did not
// finish it.
type Ran struct {
	AgentID string `json:"agent_id"`
	// Worker is the worker's host and process id ("host/1234").
	Worker  string `json:"worker"`
	PID     int    `json:"pid"`
	Attempt int    `json:"attempt"`
}

func publishRan(ctx context.Context, child *session.Session, ev Ran) {
	if bus.Observed[Ran](child.Bus()) {
		child.Bus().Publish(context.WithoutCancel(ctx), bus.Envelope{SessionID: child.ID(), ParentSessionID: child.ParentID(), Payload: ev})
	}
}
