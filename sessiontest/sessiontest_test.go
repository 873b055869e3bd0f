package sessiontest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	before := s.Snapshot()

	ok := &fakeTB{TB: t}
	require.NoError(t, s.Rollback(before))
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
	assert.True(t, sessiontest.Equal(Version{1, "a"}, Version{1, "b"}))
	assert.False(t, sessiontest.Equal(Version{1, "a"}, Note{"a"}))
	assert.True(t, sessiontest.Equal(map[string]int{"a": 1}, map[string]int{"a": 1}))
}

func TestRoundTrip(t *testing.T) {
	reg := serde.NewRegistry()
	s := newSession(t, reg)
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Version{2, "v"}))
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
