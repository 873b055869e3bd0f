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

// onDelta hands a worker's delta to the job it belongs to, which
// publishes it on its child's bus unless it is late (see late): the
// deltas come on core NATS and the batches through the progress stream,
// each on its own goroutine here, so a piece may arrive after the batch
// that recorded its whole answer.
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
	w.push(reply{delta: &d})
}

// publishDelta publishes d on child's bus as the child's, unless it is
// late; the job's goroutine calls it, in turn with the batches it
// applies.
func publishDelta(child *session.Session, d runner.Delta) {
	if late(child, d) {
		return
	}
	d.SessionID = child.ID()
	child.Bus().Publish(context.Background(), bus.Envelope{Payload: d})
}

// late reports whether child has recorded the model call d is a piece of
// (a turn of the same evaluation at or past d's): its answer is whole in
// the records, and a piece of it shown now would open a turn that ended.
func late(child *session.Session, d runner.Delta) bool {
	mc, ok := session.Latest[runner.ModelCalled](child)
	return ok && mc.Evaluation == d.Evaluation && mc.Turn >= d.Turn
}
