package journal_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// hangingCheckpoints is a store whose checkpoints never finish: each
// waits until its context is done, as a write to a lost server does.
type hangingCheckpoints struct {
	store.Store
	started chan struct{}
}

func (h hangingCheckpoints) PutCheckpoint(ctx context.Context, _ string, _ store.Checkpoint) error {
	h.started <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// Close returns within the checkpoint deadline while a checkpoint hangs,
// and says the checkpoint failed; the log lost nothing.
func TestCloseReturnsWhileACheckpointHangs(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{"default deadline", 0, 30 * time.Second},
		{"given deadline", 5 * time.Second, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := hangingCheckpoints{Store: store.NewMemory(), started: make(chan struct{}, 1)}
				j := journal.New(st, journal.Options{CheckpointEvery: 1, CheckpointTimeout: tt.timeout})
				s, err := session.New(session.WithID("s"), session.WithRegistry(serde.NewRegistry()), session.WithJournal(j))
				require.NoError(t, err)
				defer s.Close()
				require.NoError(t, s.Install(context.Background(), bank()))
				<-st.started
				start := time.Now()
				err = j.Close()
				// The checkpoint's deadline or Close's, whichever fires
				// first: both are at the same instant here.
				require.ErrorContains(t, err, "checkpoint of session s at seq 1")
				assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled), "got %v", err)
				assert.LessOrEqual(t, time.Since(start), tt.want)
				h, err := st.Header(context.Background(), "s")
				require.NoError(t, err)
				assert.Equal(t, s.Snapshot().Seq(), h.Seq, "the log is whole")
			})
		})
	}
}
