package session_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Level encodes as text ("low", "high") through encoding.TextMarshaler.
type Level int

func (l Level) MarshalText() ([]byte, error) {
	if l == 0 {
		return []byte("low"), nil
	}
	return []byte("high"), nil
}

func (l *Level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 0
	case "high":
		*l = 1
	default:
		return fmt.Errorf("level %q is neither low nor high", b)
	}
	return nil
}

// Label is a named string type.
type Label string

// Items that encode as JSON strings, numbers or lists restore like structs,
// and what MarshalSnapshot writes re-encodes byte for byte.
func TestItemsThatAreNotObjectsRoundTrip(t *testing.T) {
	when := time.Date(2026, 11, 23, 9, 30, 0, 123456789, time.FixedZone("CET", 3600))
	tests := []struct {
		name  string
		items []any
		get   func(session.Snapshot) any
		want  any
	}{
		{"time.Time", []any{when}, func(s session.Snapshot) any { return session.SliceOfSnapshot[time.Time](s).Values() }, []time.Time{when}},
		{"netip.Addr", []any{netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("2001:db8::1")},
			func(s session.Snapshot) any { return session.SliceOfSnapshot[netip.Addr](s).Values() },
			[]netip.Addr{netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("2001:db8::1")}},
		{"TextMarshaler", []any{Level(1), Level(0)}, func(s session.Snapshot) any { return session.SliceOfSnapshot[Level](s).Values() }, []Level{1, 0}},
		{"named string", []any{Label("a"), Label("b")}, func(s session.Snapshot) any { return session.SliceOfSnapshot[Label](s).Values() }, []Label{"a", "b"}},
		{"number", []any{3, 4}, func(s session.Snapshot) any { return session.SliceOfSnapshot[int](s).Values() }, []int{3, 4}},
		{"list", []any{[]string{"x", "y"}}, func(s session.Snapshot) any { return session.SliceOfSnapshot[[]string](s).Values() }, [][]string{{"x", "y"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := serde.NewRegistry()
			s := newSession(t, session.WithRegistry(reg))
			require.NoError(t, s.Dispatch(ctx, tt.items...))
			data, err := session.MarshalSnapshot(s.Snapshot(), reg)
			require.NoError(t, err)
			back, err := session.UnmarshalSnapshot(data, reg)
			require.NoError(t, err, "json: %s", data)
			got := tt.get(back)
			if times, ok := got.([]time.Time); ok {
				require.Len(t, times, 1)
				assert.True(t, times[0].Equal(when))
			} else {
				assert.Equal(t, tt.want, got)
			}
			again, err := session.MarshalSnapshot(back, reg)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(again), "byte-exact on re-marshal")
		})
	}
}

func TestATextItemThatDoesNotParseIsARestoreError(t *testing.T) {
	reg := serde.NewRegistry()
	s := newSession(t, session.WithRegistry(reg))
	require.NoError(t, s.Dispatch(ctx, Level(1)))
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	_, err = session.UnmarshalSnapshot([]byte(strings.Replace(string(data), `"high"`, `"medium"`, 1)), reg)
	var re *session.RestoreError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "slices[0].items[0]", re.Path)
	assert.Contains(t, err.Error(), `level "medium" is neither low nor high`)
}

// JSON would replace invalid UTF-8, so the restored text would differ from
// what was saved: MarshalSnapshot refuses, naming the slice and the field.
func TestInvalidUTF8FailsToMarshal(t *testing.T) {
	type Blob struct {
		Name string
		Tags map[string]string
	}
	tests := []struct {
		name, field string
		item        any
	}{
		{"string field", "field Name", Blob{Name: "bad \xff byte"}},
		{"map value", `field Tags["k"]`, Blob{Name: "ok", Tags: map[string]string{"k": "\xc3"}}},
		{"named string", "the item", Label("\xfe")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := serde.NewRegistry()
			s := newSession(t, session.WithRegistry(reg))
			require.NoError(t, s.Dispatch(ctx, tt.item))
			_, err := session.MarshalSnapshot(s.Snapshot(), reg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cannot encode item 0 of slice")
			assert.Contains(t, err.Error(), tt.field+" holds text that is not valid UTF-8")
		})
	}
	// A real U+FFFD, and the six characters \ufffd, are valid text.
	reg := serde.NewRegistry()
	s := newSession(t, session.WithRegistry(reg))
	require.NoError(t, s.Dispatch(ctx, Blob{Name: "\uFFFD and \\ufffd"}))
	_, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
}

// A fork given a registry of its own can encode and decode its own
// snapshots, with the names its parent gave the types it inherits.
func TestForkWithItsOwnRegistryRoundTrips(t *testing.T) {
	parentReg := serde.NewRegistry()
	require.NoError(t, serde.Register[Note](parentReg, "test.Note"))
	s := newSession(t, session.WithRegistry(parentReg))
	require.NoError(t, session.Register(s, sumTally))
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Added{2}, Counter{1}))

	own := serde.NewRegistry()
	child, err := s.Fork(session.WithRegistry(own))
	require.NoError(t, err)
	defer child.Close()
	require.NoError(t, child.Dispatch(ctx, Note{"b"}))
	data, err := session.MarshalSnapshot(child.Snapshot(), child.Registry())
	require.NoError(t, err)
	assert.Contains(t, string(data), `"slice_type":"test.Note"`, "the parent's name for the type")
	back, err := session.UnmarshalSnapshot(data, child.Registry())
	require.NoError(t, err)
	assert.Equal(t, []Note{{"a"}, {"b"}}, session.SliceOfSnapshot[Note](back).Values())
	assert.Equal(t, []Tally{{2}}, session.SliceOfSnapshot[Tally](back).Values())
}

// The order of a session's events is one: 16 goroutines dispatch at once,
// and the order the session applied them in (its slice), their Seq and
// their time all agree.
func TestSeqTimeAndRevisionOrderAgree(t *testing.T) {
	type stamped struct {
		Seq  uint64
		Time time.Time
		Rev  int
	}
	var tick atomic64
	b := newBusWithClock(func() time.Time { return t0.Add(time.Duration(tick.add()) * time.Microsecond) })
	s := newSession(t, session.WithBus(b))
	require.NoError(t, session.Register(s, func(rc session.ReducerContext, sl session.Slice[stamped], _ Counter) (session.Slice[stamped], error) {
		return sl.Append(stamped{Seq: rc.Seq, Time: rc.Time, Rev: sl.Len()}), nil
	}))
	const goroutines, each = 16, 500
	done := make(chan struct{})
	for range goroutines {
		go func() {
			defer func() { done <- struct{}{} }()
			for range each {
				if err := s.Dispatch(ctx, Counter{1}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range goroutines {
		<-done
	}
	got := session.Get[stamped](s).Values()
	require.Len(t, got, goroutines*each)
	assert.EqualValues(t, goroutines*each, s.Revision())
	for i := 1; i < len(got); i++ {
		require.Greater(t, got[i].Seq, got[i-1].Seq, "applied #%d has a smaller Seq than #%d", i, i-1)
		require.True(t, got[i].Time.After(got[i-1].Time), "applied #%d is stamped before #%d", i, i-1)
	}
}
