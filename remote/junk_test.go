package remote_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/remote"
)

// A job a worker cannot decode is terminated, never given again: the
// queue is empty after one delivery.
func TestAJobThatIsNotOneIsTerminated(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"not JSON", "not a job"},
		{"another wire version", `{"v":99,"token":"t_1","reply":"offshoot.progress.x.t_1"}`},
		{"no reply", `{"v":1,"token":"t_1"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			_, js := connect(t, s)
			setup, err := storySetup(false)
			require.NoError(t, err)
			setup.AckWait = 500 * time.Millisecond // a job not terminated comes back at once
			inProcessWorker(t, ctx, js, "junk", setup, nil)
			_, err = js.Publish(ctx, "offshoot.jobs.junk", []byte(tc.data))
			require.NoError(t, err)
			stream, err := js.Stream(ctx, "OFFSHOOT_JOBS")
			require.NoError(t, err)
			for {
				info, err := stream.Info(ctx)
				require.NoError(t, err)
				if info.State.Msgs == 0 {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatal("the job that is not one stayed in the queue")
				case <-time.After(20 * time.Millisecond):
				}
			}
			c, err := js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-junk")
			require.NoError(t, err)
			info, err := c.Info(ctx)
			require.NoError(t, err)
			assert.Zero(t, info.NumRedelivered)
			assert.Equal(t, uint64(1), info.Delivered.Stream)
		})
	}
}

// The jobs stream drops a job that waited longer than its max age: 12
// hours unless Setup.JobMaxAge says otherwise.
func TestTheJobsStreamHasAMaxAge(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  time.Duration
		want time.Duration
	}{
		{"default", 0, 12 * time.Hour},
		{"set", time.Minute, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			_, js := connect(t, s)
			setup, err := storySetup(false)
			require.NoError(t, err)
			setup.JobMaxAge = tc.set
			x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "aged", Setup: setup})
			require.NoError(t, err)
			defer x.Close()
			stream, err := js.Stream(ctx, "OFFSHOOT_JOBS")
			require.NoError(t, err)
			info, err := stream.Info(context.WithoutCancel(ctx))
			require.NoError(t, err)
			assert.Equal(t, tc.want, info.Config.MaxAge)
		})
	}
}
