package remote_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/subagent"
)

// forgery is what another client of the server sends about a job in
// flight, knowing its subjects and stream sequence but not its secret.
type forgery struct {
	name string
	// send forges the message; event is what the executor tells of it.
	send  func(t *testing.T, ctx context.Context, nc *nats.Conn, reply, token string, seq uint64)
	event string
}

var forgeries = []forgery{
	{name: "a result", event: "rejected", send: func(t *testing.T, ctx context.Context, nc *nats.Conn, reply, token string, _ uint64) {
		data, _ := json.Marshal(map[string]any{"token": token, "attempt": "x-1", "delivery": 1, "worker": "mallory", "pid": 1,
			"response": map[string]any{"evaluation": "e1", "text": "PWNED"}})
		publishJS(t, ctx, nc, &nats.Msg{Subject: reply, Data: data, Header: nats.Header{"Offshoot-Kind": []string{"result"}, "Offshoot-Mac": []string{"00"}}})
	}},
	{name: "a progress message", event: "rejected", send: func(t *testing.T, ctx context.Context, nc *nats.Conn, reply, token string, _ uint64) {
		data, _ := json.Marshal(map[string]any{"token": token, "attempt": "x-1", "delivery": 1, "worker": "mallory", "pid": 1,
			"batches": []any{map[string]any{"n": 1, "events": []any{map[string]any{"type": "mallory.Unknown", "data": map[string]any{}}}}}})
		publishJS(t, ctx, nc, &nats.Msg{Subject: reply, Data: data, Header: nats.Header{"Offshoot-Kind": []string{"batch"}}})
	}},
	{name: "a MaxDeliver advisory", event: "notice", send: func(t *testing.T, _ context.Context, nc *nats.Conn, _, _ string, seq uint64) {
		data, _ := json.Marshal(map[string]any{"type": "io.nats.jetstream.advisory.v1.max_deliver", "stream": "OFFSHOOT_JOBS",
			"consumer": "offshoot-forge", "stream_seq": seq, "deliveries": 3})
		require.NoError(t, nc.Publish("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.OFFSHOOT_JOBS.offshoot-forge", data))
	}},
}

func publishJS(t *testing.T, ctx context.Context, nc *nats.Conn, m *nats.Msg) {
	t.Helper()
	_, err := nc.RequestMsgWithContext(ctx, m) // JetStream acknowledges a publish to a stream
	require.NoError(t, err)
}

// Another client of the server that forges a message about a job — its
// result, its progress, the server's notice that it gave up on it —
// changes nothing: the executor drops it and counts it, and the child
// finishes with its worker's result.
func TestForgedMessagesAboutAJobChangeNothing(t *testing.T) {
	for _, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			nc, js := connect(t, s)
			reachedSub, err := nc.SubscribeSync("offshoot.test.reached")
			require.NoError(t, err)
			jobs, err := nc.SubscribeSync("offshoot.jobs.forge") // the forger reads the job's subjects
			require.NoError(t, err)
			startWorkers(t, s.ClientURL(), "forge", 1, envBarrier+"=1")
			setup, err := storySetup(false)
			require.NoError(t, err)
			x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "forge", Setup: setup})
			require.NoError(t, err)
			defer x.Close()
			events := make(chan string, 8)
			remote.Observe(x, func(e string) { events <- e })

			type out struct {
				o   *subagent.Outcome
				err error
			}
			done := make(chan out, 1)
			go func() {
				o, err := reviewerAs(t, ctx, x, "agent-1")
				done <- out{o, err}
			}()
			reached(t, ctx, reachedSub) // the child runs on its worker, held there
			m, err := jobs.NextMsgWithContext(ctx)
			require.NoError(t, err)
			reply, token, err := remote.JobReply(m.Data)
			require.NoError(t, err)
			stream, err := js.Stream(ctx, "OFFSHOOT_JOBS")
			require.NoError(t, err)
			info, err := stream.Info(ctx)
			require.NoError(t, err)

			f.send(t, ctx, nc, reply, token, info.State.LastSeq)
			select {
			case e := <-events:
				assert.Equal(t, f.event, e)
			case got := <-done:
				t.Fatalf("the forgery ended the child: %v, %q", got.err, got.o.Text)
			case <-ctx.Done():
				t.Fatal("the executor did not see the forgery")
			}
			require.NoError(t, nc.Publish("offshoot.test.release", nil))
			var got out
			select {
			case got = <-done:
			case <-ctx.Done():
				t.Fatal("the child did not finish")
			}
			require.NoError(t, got.err)
			assert.Equal(t, "done", got.o.Response.Text, "the worker's result")
			assert.Equal(t, uint64(1), x.Rejected(), "the forgery is counted")
		})
	}
}

// A worker of an earlier release sends no MAC: its refusal of the job is
// dropped like a forgery, and when it terminates the job, the child fails
// saying so rather than waiting for ever.
func TestAWorkerOfAnEarlierReleaseIsRefusedClearly(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "old", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	rejected := make(chan struct{}, 1)
	remote.Observe(x, func(event string) {
		if event == "rejected" {
			select {
			case rejected <- struct{}{}:
			default:
			}
		}
	})

	// The worker of version 2 refuses the job, unsigned, and terminates it
	// once the parent has dropped the refusal (the two reach the parent by
	// different subscriptions, in either order otherwise).
	go func() {
		cons, err := js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-old")
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
		data, _ := json.Marshal(map[string]any{"token": token, "worker": "old", "pid": 1,
			"error": map[string]any{"kind": "worker", "message": "the worker refused the job: the job message is of wire version 3; this worker reads version 2"}})
		_, _ = js.PublishMsg(ctx, &nats.Msg{Subject: reply, Data: data, Header: nats.Header{"Offshoot-Kind": []string{"result"}}})
		select {
		case <-rejected:
		case <-ctx.Done():
			return
		}
		_ = msg.Term()
	}()

	_, err = reviewerAs(t, ctx, x, "agent-1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `a worker of pool "old" refused the subagent's job without a result this program accepts`)
	assert.Contains(t, err.Error(), "a worker of another release")
	assert.Equal(t, uint64(1), x.Rejected(), "its unsigned result")
}
