package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
)

// documentedConfig is the server configuration docs/remote.md gives,
// with a third user added who may publish and subscribe on anything but
// offshoot's subjects and the server's.
func documentedConfig(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "remote.md"))
	require.NoError(t, err)
	const marker = "<!-- the configuration TestTheDocumentedServerConfiguration runs -->\n```conf\n"
	_, rest, ok := strings.Cut(string(doc), marker)
	require.True(t, ok, "docs/remote.md has no server configuration")
	conf, _, ok := strings.Cut(rest, "\n```")
	require.True(t, ok)
	third := `{user: guest, password: guest-password, permissions: {publish: {allow: [">"], deny: ["offshoot.>", "$JS.>", "$O.>"]}, subscribe: {allow: ["_INBOX.>"]}}}`
	conf = strings.Replace(conf, "  users: [\n", "  users: [\n    "+third+"\n", 1)
	require.Contains(t, conf, "guest-password")
	return conf
}

// docServer starts an embedded server with the documented configuration
// on a random loopback port.
func docServer(t *testing.T) *server.Server {
	t.Helper()
	t.Setenv("OFFSHOOT_PARENT_PASSWORD", "parent-password")
	t.Setenv("OFFSHOOT_WORKER_PASSWORD", "worker-password")
	file := filepath.Join(t.TempDir(), "nats-server.conf")
	require.NoError(t, os.WriteFile(file, []byte(documentedConfig(t)), 0o600))
	opts, err := server.ProcessConfigFile(file)
	require.NoError(t, err)
	opts.Host, opts.Port, opts.StoreDir, opts.NoLog, opts.NoSigs = "127.0.0.1", -1, t.TempDir(), true, true
	s, err := server.NewServer(opts)
	require.NoError(t, err)
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		t.Fatal("the embedded NATS server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s
}

// denials connects as user and returns the subjects the server refuses
// it, as they come.
func connectAs(t *testing.T, s *server.Server, user, password string) (*nats.Conn, chan string) {
	t.Helper()
	denied := make(chan string, 64)
	nc, err := remote.Connect(remote.Connection{URL: s.ClientURL(), User: user, Password: password},
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				select {
				case denied <- err.Error():
				default:
				}
			}
		}))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc, denied
}

// refused publishes on subject as nc and waits for the server's refusal.
func refused(t *testing.T, ctx context.Context, nc *nats.Conn, denied chan string, subject string) {
	t.Helper()
	require.NoError(t, nc.PublishMsg(&nats.Msg{Subject: subject, Reply: nc.NewRespInbox(), Data: []byte(`{}`)}))
	require.NoError(t, nc.FlushWithContext(ctx)) // the server answered everything sent before
	select {
	case d := <-denied:
		assert.Contains(t, d, subject)
	case <-ctx.Done():
		t.Fatalf("publishing on %s was not refused", subject)
	}
}

// The server configuration docs/remote.md gives is the one tested: a
// parent user's child runs on a worker user, the parent's user cannot
// take a job, and a third user can publish neither a job nor a result.
func TestTheDocumentedServerConfiguration(t *testing.T) {
	ctx := watchdog(t)
	s := docServer(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	setup, err := storySetup(false)
	require.NoError(t, err)

	wc, workerDenied := connectAs(t, s, "worker", "worker-password")
	wjs, err := jetstream.New(wc)
	require.NoError(t, err)
	worker := setup
	worker.Model = func(string) (model.Model, error) {
		return model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop}, nil
		}), nil
	}
	served := make(chan error, 1)
	go func() { served <- remote.Serve(ctx, wjs, "offshoot", worker) }()

	pc, parentDenied := connectAs(t, s, "parent", "parent-password")
	pjs, err := jetstream.New(pc)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, pjs, remote.Options{Pool: "offshoot", Setup: setup})
	require.NoError(t, err)
	// A forked child: its parent's state goes through the snapshot store.
	out, err := reviewerAs(t, ctx, x, "agent-1")
	require.NoError(t, err, "a child runs from the parent's user on the worker's")
	assert.Equal(t, "done", out.Response.Text)
	require.NoError(t, x.Close()) // removes the snapshots it stored
	assert.Empty(t, drain(parentDenied), "the parent needs nothing it is refused")
	assert.Empty(t, drain(workerDenied), "the worker needs nothing it is refused")

	// The parent's user cannot take a job, nor read one.
	refused(t, ctx, pc, parentDenied, "$JS.API.CONSUMER.MSG.NEXT.OFFSHOOT_JOBS.offshoot-offshoot")
	refused(t, ctx, pc, parentDenied, "$JS.API.STREAM.MSG.GET.OFFSHOOT_JOBS")
	// A third user can publish neither a job, nor a result, nor a notice.
	gc, guestDenied := connectAs(t, s, "guest", "guest-password")
	refused(t, ctx, gc, guestDenied, "offshoot.jobs.offshoot")
	refused(t, ctx, gc, guestDenied, "offshoot.progress.x.job_1")
	refused(t, ctx, gc, guestDenied, "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.OFFSHOOT_JOBS.offshoot-offshoot")
	// Nor can the worker's user publish a job.
	refused(t, ctx, wc, workerDenied, "offshoot.jobs.offshoot")

	cancel()
	<-served
}

// drain returns what c holds now.
func drain(c chan string) []string {
	var out []string
	for {
		select {
		case s := <-c:
			out = append(out, s)
		default:
			return out
		}
	}
}
