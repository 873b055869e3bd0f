package remote

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// A piece of a model's answer that arrives after the batch that recorded
// the answer is dropped: shown then, it would open a turn that ended
// (chat --nats printed "model turn 0" and the piece under a finished
// background child). Pieces of a later turn, or of another evaluation,
// are published.
func TestALateDeltaIsDropped(t *testing.T) {
	child, err := session.New()
	require.NoError(t, err)
	defer child.Close()
	ctx := context.Background()
	require.NoError(t, child.Install(ctx, runner.Reducers()))
	var got []runner.Delta
	unsubscribe, err := bus.Subscribe(child.Bus(), "test", func(_ context.Context, _ bus.Envelope, d runner.Delta) error {
		got = append(got, d)
		return nil
	})
	require.NoError(t, err)
	defer unsubscribe()
	piece := func(eval string, turn int) runner.Delta {
		d := runner.Delta{Evaluation: eval, Turn: turn}
		d.Text = "There"
		return d
	}

	publishDelta(child, piece("e1", 1)) // nothing recorded yet
	require.NoError(t, child.Dispatch(ctx, runner.ModelCalled{Evaluation: "e1", Turn: 1}))
	for _, tt := range []struct {
		d    runner.Delta
		want bool
	}{
		{piece("e1", 1), false}, // its turn is recorded
		{piece("e1", 2), true},
		{piece("e2", 1), true},
	} {
		got = nil
		publishDelta(child, tt.d)
		if tt.want {
			require.Len(t, got, 1, "%+v", tt.d)
			require.Equal(t, child.ID(), got[0].SessionID)
		} else {
			require.Empty(t, got, "%+v", tt.d)
		}
	}
}
