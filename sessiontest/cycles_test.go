package sessiontest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/sessiontest"
)

// Weird holds whatever it is given, cycles included.
type Weird struct{ V any }

// cyclic returns values that reach themselves through maps and slices.
func cyclic() map[string]func() any {
	return map[string]func() any{
		"map holding itself": func() any {
			m := map[string]any{"k": 1}
			m["self"] = m
			return m
		},
		"slice holding itself": func() any {
			s := []any{1, nil}
			s[1] = s
			return s
		},
		"map and slice holding each other": func() any {
			m := map[string]any{}
			s := []any{m}
			m["list"] = s
			return s
		},
		"pointer to a map holding it": func() any {
			m := map[string]any{}
			p := &m
			m["p"] = p
			return p
		},
	}
}

// watchdog runs f and fails the test if it does not return in time.
func watchdog(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the helper did not return within 5 seconds")
	}
}

// Every helper handles values that reach themselves through maps and
// slices: none panics, overflows its stack or loops, and each still says
// the right thing.
func TestHelpersHandleCyclicMapsAndSlices(t *testing.T) {
	for name, mk := range cyclic() {
		t.Run(name, func(t *testing.T) {
			reg := serde.NewRegistry()
			s := newSession(t, reg)
			x, y := mk(), mk() // equal shapes, distinct memory
			require.NoError(t, s.Dispatch(ctx, Weird{V: x}))
			watchdog(t, func() {
				assert.True(t, sessiontest.Equal(Weird{V: x}, Weird{V: x}), "Equal to itself")
				assert.True(t, sessiontest.Equal(Weird{V: x}, Weird{V: y}), "Equal to the same shape")
				assert.False(t, sessiontest.Equal(Weird{V: x}, Weird{V: "other"}))

				before := sessiontest.Capture(s)
				assert.Empty(t, before.Changes(s.Snapshot()), "nothing changed")
				ok := &fakeTB{TB: t}
				assert.True(t, sessiontest.AssertUnchanged(ok, before, s))
				assert.Empty(t, ok.errors)

				child, err := s.Fork()
				require.NoError(t, err)
				defer child.Close()
				assert.True(t, sessiontest.AssertParity(&fakeTB{TB: t}, s.Snapshot(), child))

				require.NoError(t, child.Dispatch(ctx, Weird{V: y}))
				d := sessiontest.Diff(s.Snapshot(), child.Snapshot())
				assert.Contains(t, d, "1 items vs 2 items")
				assert.Less(t, len(d), 4000, "the diff is bounded")

				require.NoError(t, s.Dispatch(ctx, Weird{V: "other"}))
				changed := &fakeTB{TB: t}
				assert.False(t, sessiontest.AssertUnchanged(changed, before, s))
				require.Len(t, changed.errors, 1)

				rt := &fakeTB{TB: t}
				sessiontest.RoundTrip(rt, s, reg)
				require.Len(t, rt.errors, 1)
				assert.Contains(t, rt.errors[0], "encoding failed")
			})
		})
	}
}

// A change made through a cycle shows in AssertUnchanged.
func TestAChangeThroughACycleShows(t *testing.T) {
	s := newSession(t, serde.NewRegistry())
	m := map[string]any{"n": 1}
	m["self"] = m
	require.NoError(t, s.Dispatch(ctx, Weird{V: m}))
	var d string
	watchdog(t, func() {
		before := sessiontest.Capture(s)
		m["n"] = 2 // the session's item shares m
		d = before.Changes(s.Snapshot())
	})
	assert.Contains(t, d, "Weird")
	assert.True(t, strings.Contains(d, "- [0]") && strings.Contains(d, "+ [0]"), d)
}

// An item JSON cannot encode is shown in a diff in Go-like syntax, cut
// short however large it is.
func TestADiffShowsAnItemJSONCannotEncodeCutShort(t *testing.T) {
	big := map[string]any{"f": func() {}}
	for i := range 100_000 {
		big[strings.Repeat("k", 1+i%7)+string(rune('a'+i%26))+strings.Repeat("x", i%13)] = []int{i, i}
	}
	s := newSession(t, serde.NewRegistry())
	before := s.Snapshot()
	require.NoError(t, s.Dispatch(ctx, Weird{V: big}))
	var d string
	watchdog(t, func() { d = sessiontest.Diff(before, s.Snapshot()) })
	assert.Contains(t, d, "+ [0] {V:map[string]interface {}(map[")
	assert.Less(t, len(d), 1000)
}
