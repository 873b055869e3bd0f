package sessiontest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
)

type Note struct{ Text string }

// Version has an Equal method that ignores Label.
type Version struct {
	N     int
	Label string
}

func (v Version) Equal(o Version) bool { return v.N == o.N }

// Secret loses its value when decoded, as a careless UnmarshalJSON would.
type Secret struct{ N int }

func (s *Secret) UnmarshalJSON([]byte) error { s.N = 0; return nil }

// Bag shares a map with whoever copies it: a value that a child and its
// parent can both reach.
type Bag struct {
	Name  string
	Items map[string]int
}

// Hidden has a field JSON does not carry.
type Hidden struct {
	Shown  string
	hidden string
}

// Loose is comparable as a type but holds an uncomparable value at run
// time: == on two of them panics.
type Loose struct{ V any }

// Tally is folded from Added events.
type (
	Added struct{ By int }
	Tally struct{ Sum int }
)

func sumTally(_ session.ReducerContext, sl session.Slice[Tally], e Added) (session.Slice[Tally], error) {
	cur, _ := sl.Latest()
	return session.SliceOf(Tally{Sum: cur.Sum + e.By}), nil
}

// fakeTB records failures instead of failing the real test, so the helpers
// can be tested to fail when they should.
type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

var ctx = context.Background()

func newSession(t *testing.T, reg *serde.Registry) *session.Session {
	t.Helper()
	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestAssertParity(t *testing.T) {
	parent := newSession(t, serde.NewRegistry())
	require.NoError(t, parent.Dispatch(ctx, Note{"a"}, Note{"b"}))
	snap := parent.Snapshot()
	child, err := parent.Fork()
	require.NoError(t, err)
	defer child.Close()

	ok := &fakeTB{TB: t}
	assert.True(t, sessiontest.AssertParity(ok, snap, child))
	assert.Empty(t, ok.errors)

	require.NoError(t, child.Dispatch(ctx, Note{"c"}))
	bad := &fakeTB{TB: t}
	assert.False(t, sessiontest.AssertParity(bad, snap, child))
	require.Len(t, bad.errors, 1)
	assert.Contains(t, bad.errors[0], "snapshot parity broken")
	assert.Contains(t, bad.errors[0], "slice sessiontest_test.Note: 2 items vs 3 items")
	assert.Contains(t, bad.errors[0], `  + [2] {"Text":"c"}`)
}

func TestAssertUnchanged(t *testing.T) {
	s := newSession(t, serde.NewRegistry())
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Version{1, "x"}))
	before := sessiontest.Capture(s)

	ok := &fakeTB{TB: t}
	require.NoError(t, session.Clear[Version](s, nil))
	require.NoError(t, session.Seed(s, Version{1, "relabelled"}))
	assert.True(t, sessiontest.AssertUnchanged(ok, before, s), "equal by the type's Equal method, not identity")
	assert.Empty(t, ok.errors)

	require.NoError(t, session.Clear(s, func(n Note) bool { return true }))
	require.NoError(t, s.Dispatch(ctx, Note{"z"}, 7))
	bad := &fakeTB{TB: t}
	assert.False(t, sessiontest.AssertUnchanged(bad, before, s))
	require.Len(t, bad.errors, 1)
	msg := bad.errors[0]
	assert.Contains(t, msg, "changed (- before, + now)")
	assert.Contains(t, msg, "  - [0] {\"Text\":\"a\"}\n  + [0] {\"Text\":\"z\"}")
	assert.Contains(t, msg, "slice int: missing vs 1 items")

	ignoring := &fakeTB{TB: t}
	require.NoError(t, session.Clear[Note](s, nil))
	require.NoError(t, s.Dispatch(ctx, Note{"a"}))
	assert.True(t, sessiontest.AssertUnchanged(ignoring, before, s, sessiontest.Ignore[int]()), "ignored types are left out")
	assert.Empty(t, ignoring.errors)
}

// Changes is AssertUnchanged for a program: "" while nothing changed, the
// diff once something did, also through memory the captured items share.
func TestCapturedChanges(t *testing.T) {
	s := newSession(t, serde.NewRegistry())
	items := map[string]int{"apples": 1}
	require.NoError(t, s.Dispatch(ctx, Bag{Name: "b", Items: items}))
	before := sessiontest.Capture(s)
	assert.Empty(t, before.Changes(s.Snapshot()))

	items["apples"] = 2 // through the map the session's item shares
	d := before.Changes(s.Snapshot())
	assert.Contains(t, d, `"apples":1`)
	assert.Contains(t, d, `"apples":2`)
	assert.Empty(t, before.Changes(s.Snapshot(), sessiontest.Ignore[Bag]()), "ignored types are left out")

	require.NoError(t, s.Dispatch(ctx, Note{"new"}))
	assert.Contains(t, before.Changes(s.Snapshot(), sessiontest.Ignore[Bag]()), `+ [0] {"Text":"new"}`)
}

// Each helper fails on exactly the cases it exists for.
func TestHelpersFailWhenTheyShould(t *testing.T) {
	t.Run("a leaked event", func(t *testing.T) {
		parent := newSession(t, serde.NewRegistry())
		require.NoError(t, parent.Dispatch(ctx, Note{"a"}))
		before := sessiontest.Capture(parent)
		child, err := parent.Fork()
		require.NoError(t, err)
		defer child.Close()
		require.NoError(t, child.Dispatch(ctx, Note{"child's"}))
		require.NoError(t, parent.Dispatch(ctx, Note{"leaked"})) // a child's event reaching its parent
		tb := &fakeTB{TB: t}
		assert.False(t, sessiontest.AssertUnchanged(tb, before, parent))
		require.Len(t, tb.errors, 1)
		assert.Contains(t, tb.errors[0], `+ [1] {"Text":"leaked"}`)
	})
	t.Run("a mutated shared map", func(t *testing.T) {
		parent := newSession(t, serde.NewRegistry())
		require.NoError(t, parent.Dispatch(ctx, Bag{Name: "b", Items: map[string]int{"x": 1}}))
		before := sessiontest.Capture(parent)
		child, err := parent.Fork()
		require.NoError(t, err)
		defer child.Close()
		bag, _ := session.Latest[Bag](child)
		bag.Items["x"] = 99 // the child writes through memory it shares with its parent

		tb := &fakeTB{TB: t}
		assert.False(t, sessiontest.AssertUnchanged(tb, before, parent), "the parent's item changed, though its slice is the same version")
		require.Len(t, tb.errors, 1)
		assert.Contains(t, tb.errors[0], `"x":1`, "the diff shows what was captured")
		assert.Contains(t, tb.errors[0], `"x":99`)
	})
	t.Run("a lost unexported field", func(t *testing.T) {
		reg := serde.NewRegistry()
		s := newSession(t, reg)
		require.NoError(t, s.Dispatch(ctx, Hidden{Shown: "a", hidden: "b"}))
		tb := &fakeTB{TB: t}
		assert.Equal(t, session.Snapshot{}, sessiontest.RoundTrip(tb, s, reg))
		require.Len(t, tb.errors, 1)
		assert.Contains(t, tb.errors[0], "round trip of session")
		assert.Contains(t, tb.errors[0], "differs in fields JSON does not show")
	})
	t.Run("an uncomparable payload", func(t *testing.T) {
		s := newSession(t, serde.NewRegistry())
		require.NoError(t, s.Dispatch(ctx, Loose{V: map[string]any{"k": []int{1}}}))
		before := sessiontest.Capture(s)
		snap := s.Snapshot()
		require.NoError(t, session.Clear[Loose](s, nil))
		require.NoError(t, s.Dispatch(ctx, Loose{V: map[string]any{"k": []int{2}}}))
		tb := &fakeTB{TB: t}
		require.NotPanics(t, func() {
			assert.False(t, sessiontest.AssertUnchanged(tb, before, s))
			assert.NotEmpty(t, sessiontest.Diff(snap, s.Snapshot()))
			assert.False(t, sessiontest.AssertParity(tb, snap, s))
		})
		assert.Len(t, tb.errors, 2)
	})
}

// The helpers never panic, whatever the items hold.
func TestHelpersNeverPanic(t *testing.T) {
	type Odd struct {
		F   func()
		C   chan int
		Any any
		P   *Odd
	}
	cyclic := &Odd{}
	cyclic.P = cyclic
	values := []any{
		Loose{V: map[string]any{"a": map[int][]any{1: {func() {}, make(chan int)}}}},
		Odd{F: func() {}, C: make(chan int), Any: []any{map[string]int{"x": 1}}},
		*cyclic,
		Loose{V: [2]any{map[string]int{}, nil}},
	}
	for i, v := range values {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			reg := serde.NewRegistry()
			s := newSession(t, reg)
			require.NoError(t, s.Dispatch(ctx, v))
			tb := &fakeTB{TB: t}
			require.NotPanics(t, func() {
				before := sessiontest.Capture(s)
				sessiontest.AssertUnchanged(tb, before, s)
				sessiontest.AssertParity(tb, s.Snapshot(), s)
				_ = sessiontest.Diff(s.Snapshot(), session.Snapshot{})
				_ = sessiontest.Equal(v, v)
				sessiontest.RoundTrip(tb, s, reg)
			})
		})
	}
}

func TestEqual(t *testing.T) {
	when := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	type Stamped struct {
		At   time.Time
		Tags []string
	}
	tests := []struct {
		name string
		x, y any
		want bool
	}{
		{"Equal method", Version{1, "a"}, Version{1, "b"}, true},
		{"different types", Version{1, "a"}, Note{"a"}, false},
		{"maps", map[string]int{"a": 1}, map[string]int{"a": 1}, true},
		{"nested Equal (time zones)", Stamped{At: when}, Stamped{At: when.In(time.FixedZone("X", 3600))}, true},
		{"nil and empty slice", Stamped{Tags: nil}, Stamped{Tags: []string{}}, true},
		{"unexported field", Hidden{"a", "b"}, Hidden{"a", "c"}, false},
		{"maps in any", Loose{V: map[string]any{"k": 1}}, Loose{V: map[string]any{"k": 1}}, true},
		{"maps in any differ", Loose{V: map[string]any{"k": 1}}, Loose{V: map[string]any{"k": 2}}, false},
		{"nil", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sessiontest.Equal(tt.x, tt.y))
		})
	}
}

func TestDiff(t *testing.T) {
	s := newSession(t, serde.NewRegistry())
	a := s.Snapshot()
	assert.Empty(t, sessiontest.Diff(a, s.Snapshot()))
	for i := range 15 {
		require.NoError(t, s.Dispatch(ctx, Note{fmt.Sprint(i)}))
	}
	d := sessiontest.Diff(a, s.Snapshot())
	assert.Contains(t, d, "slice sessiontest_test.Note: missing vs 15 items")
	assert.Equal(t, 10, strings.Count(d, "  + ["), "long diffs are capped")
}

func TestRoundTrip(t *testing.T) {
	reg := serde.NewRegistry()
	s := newSession(t, reg)
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Version{2, "v"}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
	ok := &fakeTB{TB: t}
	back := sessiontest.RoundTrip(ok, s, reg)
	assert.Empty(t, ok.errors)
	assert.Equal(t, s.ID(), back.SessionID())
	assert.Equal(t, 1, session.SliceOfSnapshot[Note](back).Len())

	require.NoError(t, s.Dispatch(ctx, Secret{N: 3}))
	lossy := &fakeTB{TB: t}
	back = sessiontest.RoundTrip(lossy, s, reg)
	require.Len(t, lossy.errors, 1)
	assert.Contains(t, lossy.errors[0], "changed slices")
	assert.Contains(t, lossy.errors[0], "Secret")
	assert.Equal(t, session.Snapshot{}, back)

	type Bad struct{ F func() }
	s2 := newSession(t, reg)
	require.NoError(t, s2.Dispatch(ctx, Bad{}))
	broken := &fakeTB{TB: t}
	sessiontest.RoundTrip(broken, s2, reg)
	require.Len(t, broken.errors, 1)
	assert.Contains(t, broken.errors[0], "encoding failed")

	unknown := &fakeTB{TB: t}
	s3 := newSession(t, serde.NewRegistry())
	type Unregistered struct{ X int }
	require.NoError(t, s3.Dispatch(ctx, Unregistered{1}))
	sessiontest.RoundTrip(unknown, s3, reg)
	require.Len(t, unknown.errors, 1)
	assert.Contains(t, unknown.errors[0], "decoding what was just encoded failed")
}

func TestSeedClearReset(t *testing.T) {
	s := newSession(t, serde.NewRegistry())
	require.NoError(t, session.Register(s, sumTally))
	require.NoError(t, session.Seed(s, Note{"a"}, Note{"b"}, Note{"c"}))
	require.NoError(t, s.Dispatch(ctx, Added{5}))

	require.NoError(t, session.Clear(s, func(n Note) bool { return n.Text == "b" }))
	assert.Equal(t, []Note{{"a"}, {"c"}}, session.Get[Note](s).Values())
	require.NoError(t, s.Dispatch(ctx, Note{"d"}), "a type without reducer is recorded in its own slice")
	assert.Equal(t, 3, session.Len[Note](s))
	require.NoError(t, session.Clear[Note](s, nil))
	assert.Zero(t, session.Len[Note](s))

	sub := 0
	s.Bus().SubscribeAll("kept", func(_ context.Context, _ bus.Envelope) error { sub++; return nil })
	require.NoError(t, s.Reset())
	assert.Zero(t, session.Len[Tally](s))
	require.NoError(t, s.Dispatch(ctx, Added{2}))
	tally, _ := session.Latest[Tally](s)
	assert.Equal(t, Tally{2}, tally, "reducers survive Reset")
	assert.Equal(t, 1, sub, "subscriptions survive Reset")
	assert.ErrorIs(t, session.Seed(s, Note{"late"}), nil)
	require.NoError(t, s.Close())
	assert.ErrorIs(t, session.Seed(s, Note{"closed"}), session.ErrClosed)
}

// New gives the same session on every run: ids s1, s2, … for it and its
// forks, a clock standing at Epoch, its own registry; options of the
// test's own win, and the session is closed when the test ends.
func TestNewIsTheSameOnEveryRun(t *testing.T) {
	var s *session.Session
	t.Run("inner", func(t *testing.T) {
		s = sessiontest.New(t)
		assert.Equal(t, "s1", s.ID())
		child, err := s.Fork()
		require.NoError(t, err)
		assert.Equal(t, "s2", child.ID())
		assert.Equal(t, sessiontest.Epoch, s.Bus().Now())

		later := sessiontest.Epoch.Add(time.Hour)
		own := sessiontest.New(t, session.WithBus(bus.New(bus.WithClock(func() time.Time { return later }))))
		assert.Equal(t, later, own.Bus().Now(), "the test's own bus wins")
	})
	assert.ErrorIs(t, s.Dispatch(context.Background(), struct{}{}), session.ErrClosed, "closed when the test ended")
}
