package remote_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/remote"
)

// lockedBuffer is a log a worker writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A cancel without the MAC of the job's secret — from anyone who may
// publish on the cancel subjects — changes nothing, whether it comes
// before the child starts or while it runs: the child finishes with its
// real result, and the worker logs the first such cancel.
func TestAForgedCancelChangesNothing(t *testing.T) {
	forgeries := []struct {
		name   string
		header nats.Header
	}{
		{"no MAC", nil},
		{"a MAC by another secret", nats.Header{"Offshoot-Kind": []string{"cancel"}, "Offshoot-Mac": []string{strings.Repeat("ab", 32)}}},
	}
	for _, tc := range []struct {
		name    string
		running bool // forged while the child runs, or before it starts
	}{{"before the start", false}, {"while it runs", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			nc, js := connect(t, s)
			forge := func(key string) {
				for _, f := range forgeries {
					require.NoError(t, nc.PublishMsg(&nats.Msg{Subject: "offshoot.cancel." + key, Header: f.header}), f.name)
				}
			}
			taken, seen, release := make(chan string, 1), make(chan string, 8), make(chan struct{})
			remote.HoldTaken(t, func(key string) {
				taken <- key
				if !tc.running {
					<-release
				}
			}, func(key string) { seen <- key })
			reached := make(chan struct{})
			setup, err := storySetup(false)
			require.NoError(t, err)
			setup.Concurrency = 1
			var log lockedBuffer
			setup.Logger = slog.New(slog.NewTextHandler(&log, nil))
			var stats remote.Stats
			setup.Stats = &stats
			var first func(context.Context)
			if tc.running {
				first = func(context.Context) {
					close(reached)
					<-release
				}
			}
			calls := inProcessWorker(t, ctx, js, "forged", setup, first)
			x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "forged", Setup: setup})
			require.NoError(t, err)
			defer x.Close()

			type outcome struct {
				text string
				err  error
			}
			done := make(chan outcome, 1)
			go func() {
				out, err := reviewer(t, ctx, x)
				if err != nil {
					done <- outcome{err: err}
					return
				}
				done <- outcome{text: out.Response.Text}
			}()
			key := recv(t, ctx, taken, "the worker took no job")
			if tc.running {
				recv(t, ctx, reached, "the child did not start")
			}
			forge(key)
			for range forgeries {
				for recv(t, ctx, seen, "the worker saw no cancel") != key {
				}
			}
			close(release)
			out := recv(t, ctx, done, "the child did not return")
			require.NoError(t, out.err)
			assert.Equal(t, "done", out.text)
			assert.Equal(t, int64(1), calls.Load(), "model runs")
			assert.Equal(t, 1, strings.Count(log.String(), "ignored a cancel"), "log lines about forged cancels:\n%s", log.String())
			assert.Equal(t, uint64(len(forgeries)), stats.IgnoredCancels(), "cancels the worker counts as ignored")
		})
	}
}
