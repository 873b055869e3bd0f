package remote_test

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
)

// A worker whose server stays away longer than its connection tries to
// reconnect (Connection.Reconnect) returns from Serve, saying that the
// server was unreachable for that long.
func TestAWorkerWhoseServerStaysAwayReturns(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	nc, err := remote.Connect(remote.Connection{URL: s.ClientURL(), Reconnect: 200 * time.Millisecond})
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	fetched := make(chan struct{})
	var once sync.Once
	remote.HoldFetches(t, 100*time.Millisecond, func() { once.Do(func() { close(fetched) }) })
	setup, err := storySetup(false)
	require.NoError(t, err)
	setup.Logger = slog.New(slog.DiscardHandler)
	setup.Model = func(string) (model.Model, error) { return billing.Script(), nil }
	served := make(chan error, 1)
	go func() { served <- remote.Serve(ctx, js, "away", setup) }()

	select {
	case <-fetched:
	case err := <-served:
		t.Fatalf("Serve returned before the server went away: %v", err)
	case <-ctx.Done():
		t.Fatal("the worker did not ask for jobs")
	}
	s.Shutdown()
	err = recv(t, ctx, served, "Serve did not return with its server gone")
	require.Error(t, err)
	assert.ErrorIs(t, err, nats.ErrConnectionClosed)
	assert.Contains(t, err.Error(), `the worker can take no more jobs of pool "away": the NATS server was unreachable for`)
	t.Log(err)
}

// The default reconnection lasts about DefaultReconnect.
func TestTheDefaultReconnectionLastsTwoMinutes(t *testing.T) {
	opts, err := remote.Connection{}.Options()
	require.NoError(t, err)
	var o nats.Options
	for _, opt := range opts {
		require.NoError(t, opt(&o))
	}
	assert.Equal(t, remote.DefaultReconnect, time.Duration(o.MaxReconnect)*o.ReconnectWait)
	forever, err := remote.Connection{Reconnect: -1}.Options()
	require.NoError(t, err)
	for _, opt := range forever {
		require.NoError(t, opt(&o))
	}
	assert.Equal(t, -1, o.MaxReconnect)
}
