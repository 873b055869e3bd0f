package vfs_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// t0 is the fake clock's start: not on a millisecond, so stamping shows.
var t0 = time.Date(2026, 11, 22, 10, 0, 0, 123_456_789, time.FixedZone("CET", 3600))

// clock is a settable fake clock for the bus.
type clock struct{ now atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.now.Store(t0.UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.now.Load()).In(t0.Location()) }
func (c *clock) Advance(d time.Duration) { c.now.Add(int64(d)) }

// stamp is how the VFS records a time: UTC, whole milliseconds.
func stamp(at time.Time) time.Time { return at.UTC().Truncate(time.Millisecond) }

// harness runs tools the way the runner does: install the toolset on the
// session, call a tool through the type-erased Tool.Call with raw JSON
// arguments, and dispatch the outcome's events to the session.
type harness struct {
	t     testing.TB
	s     *session.Session
	set   tools.Toolset
	clock *clock
}

// newHarness returns a harness over a new session on a bus with a fake
// clock, with the VFS tools of opts installed.
func newHarness(t testing.TB, opts ...vfs.Options) *harness {
	t.Helper()
	var o vfs.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	set, err := vfs.Tools(o)
	require.NoError(t, err)
	c := newClock()
	s, err := session.New(session.WithBus(bus.New(bus.WithClock(c.Now))))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, set.Install(context.Background(), s))
	return &harness{t: t, s: s, set: set, clock: c}
}

// call runs the tool name with JSON args on the harness's session.
func (h *harness) call(name, args string) tools.Outcome {
	h.t.Helper()
	return callOn(h.t, h.set, h.s, name, args)
}

// callOn runs the tool name of set with JSON args against s and dispatches
// its events there, as the runner does.
func callOn(t testing.TB, set tools.Toolset, s *session.Session, name, args string) tools.Outcome {
	t.Helper()
	tool, ok := set.Lookup(name)
	require.True(t, ok, "no tool %q", name)
	inv := &tools.Invocation{Session: s, Bus: s.Bus(), CallID: "call-1"}
	out := tool.Call(context.Background(), inv, json.RawMessage(args))
	if len(out.Events) > 0 {
		require.NoError(t, s.Dispatch(context.Background(), out.Events...), "dispatching the events of %s %s", name, args)
	}
	return out
}

// ok runs a call that must succeed and returns its value.
func ok[R any](h *harness, name, args string) R {
	h.t.Helper()
	out := h.call(name, args)
	require.True(h.t, out.Success, "%s %s failed: %s", name, args, out.Text)
	v, isR := out.Value.(R)
	require.True(h.t, isR, "%s returned a %T", name, out.Value)
	return v
}

// fail runs a call that must fail and returns its text.
func fail(h *harness, name, args string) string {
	h.t.Helper()
	out := h.call(name, args)
	require.False(h.t, out.Success, "%s %s succeeded: %s", name, args, out.Text)
	require.Empty(h.t, out.Events, "a failed call returned events")
	return out.Text
}

// write creates files through write_file.
func (h *harness) write(files map[string]string) {
	h.t.Helper()
	for p, c := range files {
		args, err := json.Marshal(vfs.WriteParams{FilePath: p, Content: c})
		require.NoError(h.t, err)
		ok[vfs.WriteResult](h, "write_file", string(args))
	}
}

// jsonArgs encodes v as tool arguments.
func jsonArgs(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
