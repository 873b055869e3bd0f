package session_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Event and slice types used across the tests.
type (
	Note    struct{ Text string }
	Counter struct{ N int }
	Added   struct{ By int }
	Tally   struct{ Sum int }
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// ids returns a deterministic id generator: s1, s2, ...
func ids() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("s%d", n.Add(1)) }
}

// newSession returns a session on a bus with a fixed clock, deterministic
// ids and its own registry.
func newSession(t testing.TB, opts ...session.Option) *session.Session {
	t.Helper()
	b := bus.New(bus.WithClock(func() time.Time { return t0 }))
	base := []session.Option{session.WithBus(b), session.WithIDGenerator(ids()), session.WithRegistry(serde.NewRegistry())}
	s, err := session.New(append(base, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// sumTally folds Added events into a one-value Tally slice.
func sumTally(_ session.ReducerContext, sl session.Slice[Tally], e Added) (session.Slice[Tally], error) {
	cur, _ := sl.Latest()
	return session.SliceOf(Tally{Sum: cur.Sum + e.By}), nil
}

// atomic64 is a counter for fake clocks.
type atomic64 struct{ n atomic.Int64 }

func (a *atomic64) add() int64 { return a.n.Add(1) }

func newBusWithClock(clock func() time.Time) *bus.Bus { return bus.New(bus.WithClock(clock)) }
