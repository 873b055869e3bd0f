package remote

import (
	"context"
	"encoding/json"

	"github.com/nats-io/nats.go"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// Deltas — the pieces of a model's answer as it streams — are not
// recorded, so they do not travel with the batches: when the parent's
// bus has observers of them, the job asks for them, and the worker
// publishes each one on the job's delta subject (core NATS: a piece lost
// to a disconnection is lost, as a piece a terminal missed is), which the
// parent publishes on its bus as a runner.Delta of the child's session.

func deltaSubject(executor, tok string) string { return "offshoot.delta." + executor + "." + tok }

// forwardDeltas publishes the deltas of the evaluations on s on the job's
// delta subject, with their MACs, until the returned stop.
func forwardDeltas(nc *nats.Conn, s *session.Session, j *job) (stop func(), err error) {
	return bus.Subscribe(s.Bus(), "remote deltas", func(_ context.Context, _ bus.Envelope, d runner.Delta) error {
		if d.SessionID != s.ID() {
			return nil // another child's, on a bus the worker's children share (Setup.Bus)
		}
		data, err := json.Marshal(d)
		if err != nil {
			return err
		}
		m := &nats.Msg{Subject: j.Deltas, Data: data, Header: nats.Header{}}
		sign(m.Header, j.Secret, macDelta, j.key(), data)
		return nc.PublishMsg(m)
	})
}

// onDelta publishes a worker's delta on the bus of the child it belongs
// to.
func (x *Executor) onDelta(m *nats.Msg) {
	tok := m.Subject[len(deltaSubject(x.id, "")):]
	x.mu.Lock()
	w := x.waiting[tok]
	x.mu.Unlock()
	if w == nil || w.child == nil {
		return
	}
	if !authentic(m.Header, w.job.Secret, macDelta, w.job.key(), m.Data) {
		x.reject(w.job, w, "a delta")
		return
	}
	var d runner.Delta
	if len(m.Data) > maxInline || json.Unmarshal(m.Data, &d) != nil {
		return
	}
	d.SessionID = w.child.ID()
	w.child.Bus().Publish(context.Background(), bus.Envelope{Payload: d})
}
