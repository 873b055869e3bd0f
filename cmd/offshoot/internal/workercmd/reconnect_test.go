package workercmd

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// A worker whose server stays away longer than --reconnect exits 1,
// saying the server was unreachable for that long.
func TestTheWorkerExitsWhenItsServerStaysAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a watchdog: the worker must not wait for ever
	defer cancel()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go s.Start()
	defer s.Shutdown()
	require.True(t, s.ReadyForConnections(30*time.Second), "the embedded NATS server did not start")
	// The worker's first request for jobs says that it serves.
	nc, err := nats.Connect(s.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	asks, err := nc.SubscribeSync("$JS.API.CONSUMER.MSG.NEXT.OFFSHOOT_JOBS.offshoot-away")
	require.NoError(t, err)

	var out bytes.Buffer
	e := &cli.Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	cmd := Command(e)
	cmd.SetArgs([]string{"--nats", s.ClientURL(), "--pool", "away", "--reconnect", "300ms"})
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	asked := make(chan error, 1)
	go func() {
		_, err := asks.NextMsgWithContext(ctx)
		asked <- err
	}()
	select {
	case err := <-asked:
		require.NoError(t, err, "the worker did not ask for jobs")
	case err := <-done:
		t.Fatalf("the worker exited before its server went away: %v\n%s", err, out.String())
	}
	nc.Close()
	s.Shutdown()
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("the worker did not exit with its server gone")
	}
	require.Error(t, err)
	assert.Equal(t, cli.ExitFailed, cli.Code(err, true), err.Error())
	assert.Contains(t, err.Error(), "the NATS server was unreachable for about 300ms")
}
