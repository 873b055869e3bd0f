package remote_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/remote"
)

// A result that counts batches which never arrive — their messages lost,
// or a worker that lies — fails the child after a while, saying so,
// instead of keeping the parent waiting for ever.
func TestAResultWhoseBatchesNeverArriveFailsTheChild(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "liar", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	remote.SetMissingWait(x, 50*time.Millisecond) // the batches never come, however long

	// A worker (it has the job's secret) that answers the job with a
	// result counting 3 batches, and sends none.
	go func() {
		cons, err := js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-liar")
		if err != nil {
			return
		}
		msg, err := cons.Next(jetstream.FetchMaxWait(time.Minute))
		if err != nil {
			return
		}
		reply, token, err := remote.JobReply(msg.Data())
		if err != nil {
			return
		}
		data, _ := json.Marshal(map[string]any{"token": token, "attempt": "a1", "delivery": 1, "worker": "liar", "pid": 1, "batches": 3,
			"response": map[string]any{"evaluation": "e1", "text": "done"}})
		h, err := remote.ResultHeader(msg.Data(), data)
		if err != nil {
			return
		}
		_, _ = js.PublishMsg(ctx, &nats.Msg{Subject: reply, Data: data, Header: h})
		_ = msg.Ack()
	}()

	_, err = reviewerAs(t, ctx, x, "agent-1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "counts 3 batches")
	assert.Contains(t, err.Error(), "never arrived")
}
