package remote

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// blockingObjects is an object store whose uploads wait: each PutBytes
// says it started (entered), then waits for release or its context.
type blockingObjects struct {
	jetstream.ObjectStore
	entered chan string
	release chan struct{}
}

func (o *blockingObjects) PutBytes(ctx context.Context, name string, data []byte) (*jetstream.ObjectInfo, error) {
	o.entered <- name
	select {
	case <-o.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return o.ObjectStore.PutBytes(ctx, name, data)
}

type noted struct {
	Text string `json:"text"`
}

// publisherFixture starts a JetStream server and returns a publisher of
// job "k" whose uploads go through objects (made from the real bucket),
// and the progress stream it sends to.
func publisherFixture(t *testing.T, ctx context.Context, objects func(jetstream.ObjectStore) jetstream.ObjectStore) (*publisher, jetstream.Stream) {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second))
	t.Cleanup(srv.Shutdown)
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	in, err := ensure(ctx, js, "objects", time.Minute, 3, time.Hour)
	require.NoError(t, err)
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[noted](reg, "noted"))
	return &publisher{js: js, objects: objects(in.objects), reg: reg, subject: "offshoot.progress.test", token: "test",
		key: "k", secret: []byte("secret"), attempt: "1", worker: "w"}, in.replies
}

// sentBatches reads the progress messages the stream holds, in order,
// and returns their batches.
func sentBatches(t *testing.T, ctx context.Context, st jetstream.Stream) []batch {
	t.Helper()
	info, err := st.Info(ctx)
	require.NoError(t, err)
	var out []batch
	for seq := info.State.FirstSeq; seq > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		require.NoError(t, err)
		var pr progress
		require.NoError(t, json.Unmarshal(m.Data, &pr))
		out = append(out, pr.Batches...)
	}
	return out
}

// A batch too big for a message is stored in the object store by the
// publisher's sender, not inside the session's commit: while its upload
// waits on a slow store, the child's session takes other writes, and the
// batches still go out in order, the big one by its object's name.
func TestPublisherUploadsOutsideTheCommit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a watchdog: nothing here waits on time
	defer cancel()
	slow := &blockingObjects{entered: make(chan string, 1), release: make(chan struct{})}
	pub, replies := publisherFixture(t, ctx, func(o jetstream.ObjectStore) jetstream.ObjectStore { slow.ObjectStore = o; return slow })
	s, err := session.New(session.WithRegistry(pub.reg), session.WithJournal(pub))
	require.NoError(t, err)
	defer s.Close()
	pub.start()

	big := noted{Text: strings.Repeat("x", maxInline+1)}
	bigDone := make(chan error, 1)
	go func() { bigDone <- s.Dispatch(ctx, big) }()
	var object string
	select {
	case object = <-slow.entered: // the upload has started and waits
	case <-ctx.Done():
		t.Fatal("the big batch was never uploaded")
	}
	smallDone := make(chan error, 1)
	go func() { smallDone <- s.Dispatch(ctx, noted{Text: "small"}) }()
	select {
	case err := <-smallDone:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("a dispatch waited for the upload of an earlier batch: the upload holds the session's lock")
	}
	require.NoError(t, <-bigDone)
	close(slow.release)

	n, tail := pub.flush(ctx)
	requireStopped(t, pub)
	require.NoError(t, pub.err)
	require.Equal(t, 2, n)
	got := append(sentBatches(t, ctx, replies), tail...)
	require.Len(t, got, 2)
	require.Equal(t, 1, got[0].N)
	require.Equal(t, object, got[0].Object)
	require.Empty(t, got[0].Events)
	require.Equal(t, 2, got[1].N)
	require.Len(t, got[1].Events, 1)
	r, err := slow.ObjectStore.Get(ctx, object)
	require.NoError(t, err)
	raw, err := io.ReadAll(r)
	require.NoError(t, err)
	var events []typed
	require.NoError(t, json.Unmarshal(raw, &events))
	require.Len(t, events, 1)
	require.Contains(t, string(events[0].Data), big.Text)
}

// An upload that never ends does not hold the job's end: flush stops it
// when its context ends, and the publisher's error says the batch was not
// stored.
func TestPublisherFlushStopsAStuckUpload(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a watchdog
	defer cancel()
	slow := &blockingObjects{entered: make(chan string, 1), release: make(chan struct{})}
	pub, _ := publisherFixture(t, ctx, func(o jetstream.ObjectStore) jetstream.ObjectStore { slow.ObjectStore = o; return slow })
	s, err := session.New(session.WithRegistry(pub.reg), session.WithJournal(pub))
	require.NoError(t, err)
	defer s.Close()
	pub.start()
	require.NoError(t, s.Dispatch(ctx, noted{Text: strings.Repeat("x", maxInline+1)}))
	<-slow.entered
	drain, stop := context.WithCancel(ctx)
	stop() // the worker's drain is over
	pub.flush(drain)
	requireStopped(t, pub)
	require.ErrorContains(t, pub.err, "storing batch 1 of the child")
	require.ErrorIs(t, pub.err, context.Canceled)
}

// requireStopped checks that the publisher's sender goroutine is gone.
func requireStopped(t *testing.T, pub *publisher) {
	t.Helper()
	select {
	case <-pub.stopped:
	default:
		t.Fatal("flush returned with the sender still running")
	}
}

// The batches a publisher holds unsent are bounded: past the bound, a
// commit waits for the sender to make room, and goes on once it has; one
// whose context ends first is not queued, and the job's result says so.
func TestPublisherQueueIsBounded(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cancel bool // the second commit's context is over
	}{{"waits for room", false}, {"gives up with its context", true}} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a watchdog
			defer cancel()
			slow := &blockingObjects{entered: make(chan string, 2), release: make(chan struct{})}
			pub, replies := publisherFixture(t, ctx, func(o jetstream.ObjectStore) jetstream.ObjectStore { slow.ObjectStore = o; return slow })
			pub.limit = maxInline + 1<<10 // one big batch fills it
			s, err := session.New(session.WithRegistry(pub.reg), session.WithJournal(pub))
			require.NoError(t, err)
			defer s.Close()
			pub.start()

			require.NoError(t, s.Dispatch(ctx, noted{Text: strings.Repeat("a", maxInline+1)}))
			<-slow.entered // the first is being stored, and fills the queue
			second := noted{Text: strings.Repeat("b", maxInline+1)}
			if tt.cancel {
				over, stop := context.WithCancel(ctx)
				stop()
				require.NoError(t, s.Dispatch(over, second), "the publisher never fails the child's write")
				close(slow.release)
				pub.flush(ctx)
				requireStopped(t, pub)
				require.ErrorContains(t, pub.err, "batch 2 of the child: the worker was still sending")
				require.ErrorIs(t, pub.err, context.Canceled)
				return
			}
			done := make(chan error, 1)
			go func() { done <- s.Dispatch(ctx, second) }()
			close(slow.release) // the first is stored and sent: room for the second
			require.NoError(t, <-done)
			n, tail := pub.flush(ctx)
			requireStopped(t, pub)
			require.NoError(t, pub.err)
			require.Equal(t, 2, n)
			got := append(sentBatches(t, ctx, replies), tail...)
			require.Len(t, got, 2)
			require.Equal(t, []int{1, 2}, []int{got[0].N, got[1].N})
			require.NotEmpty(t, got[1].Object)
			require.Zero(t, pub.queued)
		})
	}
}
