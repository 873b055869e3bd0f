package sessiontest

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Epoch is the time the clock of a session made by New stands at.
var Epoch = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// New returns a session for a test, the same on every run: a type
// registry of its own (nothing registered globally), a bus whose clock
// stands at Epoch, ids s1, s2, … for it and the sessions forked from it.
// It is closed when the test ends. opts are applied after these, so a
// session.WithBus of the test's own (a clock that moves, say) wins.
func New(t testing.TB, opts ...session.Option) *session.Session {
	t.Helper()
	var ids atomic.Int64
	base := []session.Option{
		session.WithBus(bus.New(bus.WithClock(func() time.Time { return Epoch }))),
		session.WithRegistry(serde.NewRegistry()),
		session.WithIDGenerator(func() string { return fmt.Sprintf("s%d", ids.Add(1)) }),
	}
	s, err := session.New(append(base, opts...)...)
	if err != nil {
		t.Fatalf("sessiontest: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
