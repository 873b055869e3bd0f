package remote

import (
	"context"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
)

// Ran tells the parent's bus observers where a child runs: published
// when a worker starts on it (again, with a higher Attempt, when its
// job went to another worker).
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
