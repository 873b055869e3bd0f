package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
)

// The server says so when it gives up on a job: it publishes an advisory
// when a job reached the pool's MaxDeliver, or a worker terminated it.
// Anyone who can publish on the server can publish one too, so a notice
// is taken only on the server's own advisory subjects, only for a job in
// flight (by its stream sequence), and only once the pool's state on the
// server confirms it: its ack floor has passed the job, or it holds no
// job at all and has delivered this one (a job a worker still holds
// keeps the floor below it, and the pool holding it), and no result of
// the job's worker waits in the progress stream. A notice the state does
// not confirm yet (jobs below it still held) is checked again every
// AckWait while the job is in flight.

// Kinds of advisory taken, by the token that names them in the subject.
const (
	noticeMaxDeliveries = "MAX_DELIVERIES"
	noticeTerminated    = "MSG_TERMINATED"
)

// The types the advisories of each kind carry.
var noticeTypes = map[string]string{
	noticeMaxDeliveries: "io.nats.jetstream.advisory.v1.max_deliver",
	noticeTerminated:    "io.nats.jetstream.advisory.v1.terminated",
}

// advisorySubject is where the server publishes advisories of kind about
// the pool's consumer.
func advisorySubject(kind, pool string) string {
	return "$JS.EVENT.ADVISORY.CONSUMER." + kind + "." + jobsStream + "." + consumerName(pool)
}

// notice is an advisory about a job in flight, not confirmed yet.
type notice struct {
	kind       string
	seq        uint64
	deliveries int
	reason     string
}

// onAdvisory passes an advisory about a job in flight to the job.
func (x *Executor) onAdvisory(m *nats.Msg) {
	kind, _, _ := strings.Cut(strings.TrimPrefix(m.Subject, "$JS.EVENT.ADVISORY.CONSUMER."), ".")
	var adv struct {
		Type       string `json:"type"`
		Stream     string `json:"stream"`
		Consumer   string `json:"consumer"`
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries int    `json:"deliveries"`
		Reason     string `json:"reason"`
	}
	if len(m.Data) > maxInline || json.Unmarshal(m.Data, &adv) != nil ||
		adv.Type != noticeTypes[kind] || adv.Stream != jobsStream || adv.Consumer != consumerName(x.pool) {
		return
	}
	x.mu.Lock()
	tok, ok := x.bySeq[adv.StreamSeq]
	w := x.waiting[tok]
	x.mu.Unlock()
	if ok && w != nil {
		w.push(reply{notice: &notice{kind: kind, seq: adv.StreamSeq, deliveries: adv.Deliveries, reason: clip(adv.Reason)}})
	}
}

// confirmed reports whether the pool's state on the server confirms n
// about j: the pool is past the job, and j's worker left no result.
func (x *Executor) confirmed(ctx context.Context, j *job, n *notice) bool {
	info, err := x.in.pool.Info(ctx)
	if err != nil {
		return false
	}
	// The ack floor passes the job once every job below it is done; a
	// pool that holds no job and has delivered it is done with it too.
	if info.AckFloor.Stream < n.seq && (info.NumAckPending > 0 || info.Delivered.Stream < n.seq) {
		return false
	}
	if n.kind == noticeMaxDeliveries && info.Config.MaxDeliver > 0 && n.deliveries < info.Config.MaxDeliver {
		return false
	}
	last, err := x.in.replies.GetLastMsgForSubject(ctx, j.Reply)
	if err == nil && last.Header.Get(kindHeader) == macResult && authentic(last.Header, j.Secret, macResult, j.key(), last.Data) {
		return false // the result is on its way
	}
	return true
}

// gaveUp is the failure of a job the server confirmed it gave up on.
func (x *Executor) gaveUp(n *notice) error {
	if n.kind == noticeTerminated {
		why := ""
		if n.reason != "" {
			why = " (" + n.reason + ")"
		}
		return fmt.Errorf("a worker of pool %q refused the subagent's job without a result this program accepts%s: a worker of another release refuses jobs of this one; see the workers' logs", x.pool, why)
	}
	return fmt.Errorf("no worker of pool %q finished the subagent in %d deliveries (MaxDeliver); see the workers' logs", x.pool, n.deliveries)
}
