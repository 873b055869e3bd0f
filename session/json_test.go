package session_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Checked is a slice type with validation tags.
type Checked struct {
	Name string `json:"name" validate:"required,max=8"`
	N    int    `json:"n"`
}

func jsonSession(t *testing.T) (*session.Session, *serde.Registry) {
	t.Helper()
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[Note](reg, "test.Note"))
	s := newSession(t, session.WithRegistry(reg), session.WithTags(map[string]string{"b": "2", "a": "1"}))
	require.NoError(t, session.Register(s, sumTally))
	return s, reg
}

func TestMarshalSnapshotShape(t *testing.T) {
	s, reg := jsonSession(t)
	child, err := s.Fork()
	require.NoError(t, err)
	defer child.Close()
	require.NoError(t, s.Dispatch(ctx, Note{"hi"}, Added{2}, Checked{Name: "x", N: 1}))

	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	want := `{"version":"1","session_id":"s1","created_at":"2026-11-22T10:00:00Z","parent_id":null,"children_ids":["s2"],` +
		`"tags":{"a":"1","b":"2"},"slices":[` +
		`{"slice_type":"github.com/offshoot-dev/offshoot/session_test.Checked","item_type":"github.com/offshoot-dev/offshoot/session_test.Checked","items":[{"name":"x","n":1}]},` +
		`{"slice_type":"github.com/offshoot-dev/offshoot/session_test.Tally","item_type":"github.com/offshoot-dev/offshoot/session_test.Tally","items":[{"Sum":2}]},` +
		`{"slice_type":"test.Note","item_type":"test.Note","items":[{"Text":"hi"}]}]}`
	assert.Equal(t, want, string(data))

	again, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	assert.Equal(t, data, again, "stable bytes")

	childData, err := session.MarshalSnapshot(child.Snapshot(), reg)
	require.NoError(t, err)
	assert.Contains(t, string(childData), `"parent_id":"s1","children_ids":[]`)
}

func TestSnapshotRoundTrip(t *testing.T) {
	s, reg := jsonSession(t)
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Note{"b"}, Added{3}, Checked{Name: "ok", N: 2}))
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	back, err := session.UnmarshalSnapshot(data, reg)
	require.NoError(t, err)
	assert.Equal(t, s.ID(), back.SessionID())
	assert.Equal(t, t0, back.CreatedAt())
	assert.Equal(t, []Note{{"a"}, {"b"}}, session.SliceOfSnapshot[Note](back).Values())
	assert.Equal(t, []Checked{{"ok", 2}}, session.SliceOfSnapshot[Checked](back).Values())

	restored := newSession(t, session.WithRegistry(reg), session.WithSnapshot(back))
	assert.Equal(t, []Tally{{3}}, session.Get[Tally](restored).Values())
}

func TestMarshalFailsForValuesThatCannotBeEncoded(t *testing.T) {
	type WithChan struct{ C chan int }
	s, reg := jsonSession(t)
	require.NoError(t, s.Dispatch(ctx, WithChan{C: make(chan int)}))
	snap := s.Snapshot() // in memory, it works
	assert.Equal(t, 1, snap.Len(typeOf[WithChan]()))
	_, err := session.MarshalSnapshot(snap, reg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cannot encode item 0 of slice "github.com/offshoot-dev/offshoot/session_test.WithChan"`)
}

func TestMarshalFailsOnNameCollision(t *testing.T) {
	s, _ := jsonSession(t)
	require.NoError(t, s.Dispatch(ctx, Counter{1}, Note{"x"}))
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[Counter](reg, "same"))
	require.NoError(t, serde.Register[Note](reg, "other"))
	// A name registry that maps two types to one name cannot exist, so force
	// the collision through DefaultName: register Note under Counter's default.
	reg2 := serde.NewRegistry()
	require.NoError(t, serde.Register[Note](reg2, serde.DefaultName(typeOf[Counter]())))
	_, err := session.MarshalSnapshot(s.Snapshot(), reg2)
	require.ErrorContains(t, err, "are both named")
	_, err = session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
}

func TestUnmarshalSnapshotErrors(t *testing.T) {
	s, reg := jsonSession(t)
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Checked{Name: "ok"}))
	good, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	valid := string(good)
	replace := func(old, new string) string {
		require.Contains(t, valid, old)
		return strings.Replace(valid, old, new, 1)
	}
	noteSlice := `{"slice_type":"test.Note","item_type":"test.Note","items":[{"Text":"a"}]}`

	tests := []struct {
		name, data, path, reason string
	}{
		{"invalid JSON", `{"version":`, "", "invalid JSON"},
		{"non-object", `[1,2]`, "", "a snapshot is a JSON object, got a list"},
		{"missing version", replace(`"version":"1",`, ""), "version", "missing"},
		{"version 2 string", replace(`"version":"1"`, `"version":"2"`), "version", `unsupported version "2"`},
		{"version 2 number", replace(`"version":"1"`, `"version":2`), "version", `must be the string "1", got 2`},
		{"unknown top-level key", replace(`"version":"1",`, `"version":"1","extra":1,`), "extra", "unknown member"},
		{"duplicate top-level key", replace(`"version":"1",`, `"version":"1","version":"1",`), "version", "appears twice"},
		{"own parent", replace(`"parent_id":null`, `"parent_id":"s1"`), "parent_id", "a session cannot be its own parent"},
		{"own child", replace(`"children_ids":[]`, `"children_ids":["s9","s1"]`), "children_ids[1]", "a session cannot be its own child"},
		{"parent as child", replace(`"parent_id":null,"children_ids":[]`, `"parent_id":"p","children_ids":["p"]`), "children_ids[0]", "cannot be its parent's parent"},
		{"child twice", replace(`"children_ids":[]`, `"children_ids":["s2","s2"]`), "children_ids[1]", `"s2" appears twice`},
		{"bad timestamp", replace(`"2026-11-22T10:00:00Z"`, `"yesterday"`), "created_at", `"yesterday" is not an RFC 3339 timestamp`},
		{"timestamp not a string", replace(`"2026-11-22T10:00:00Z"`, `12`), "created_at", "must be an RFC 3339 timestamp string"},
		{"missing session id", replace(`"session_id":"s1",`, ""), "session_id", "missing"},
		{"empty session id", replace(`"session_id":"s1"`, `"session_id":""`), "session_id", "1 to 256 characters"},
		{"session id with space", replace(`"session_id":"s1"`, `"session_id":"a b"`), "session_id", "printable ASCII without spaces"},
		{"session id number", replace(`"session_id":"s1"`, `"session_id":1`), "session_id", "must be a string"},
		{"bad parent id", replace(`"parent_id":null`, `"parent_id":"\u0000"`), "parent_id", "printable ASCII"},
		{"bad child id", replace(`"children_ids":[]`, `"children_ids":[""]`), "children_ids[0]", "1 to 256 characters"},
		{"children not a list", replace(`"children_ids":[]`, `"children_ids":"s2"`), "children_ids", "must be a list of ids"},
		{"tags not strings", replace(`"tags":{"a":"1","b":"2"}`, `"tags":{"a":1}`), "tags", "must be an object of strings"},
		{"slices not a list", replace(`"slices":[`, `"slices":{"x":[`) + "}", "slices", "must be a list, got an object"},
		{"missing slices", `{"version":"1","session_id":"s1","created_at":"2026-11-22T10:00:00Z"}`, "slices", "missing"},
		{"slice not an object", replace(noteSlice, `7`), "slices[2]", "must be an object, got a number"},
		{"items not a list", replace(`"items":[{"Text":"a"}]`, `"items":{"Text":"a"}`), "slices[2].items", "must be a list, got an object"},
		{"unknown slice member", replace(`"items":[{"Text":"a"}]`, `"items":[{"Text":"a"}],"more":1`), "slices[2].more", "unknown member"},
		{"items before their type", replace(noteSlice, `{"items":[{"Text":7}],"slice_type":"test.Note"}`), "slices[2].items[0]", "invalid session_test.Note"},
		{"items not objects", replace(`"items":[{"Text":"a"}]`, `"items":[1,2]`), "slices[2].items[0]", "must be an object, got a number"},
		{"unknown type", replace(`"slice_type":"test.Note","item_type":"test.Note"`, `"slice_type":"test.Gone","item_type":"test.Gone"`), "slices[2].slice_type", `type "test.Gone" is not in the registry`},
		{"item type mismatch", replace(`"item_type":"test.Note"`, `"item_type":"github.com/offshoot-dev/offshoot/session_test.Tally"`), "slices[2].item_type", `does not match slice_type "test.Note"`},
		{"duplicate slice", replace(noteSlice, noteSlice+","+noteSlice), "slices[3].slice_type", `"test.Note" appears twice`},
		{"unknown item field", replace(`{"Text":"a"}`, `{"Text":"a","Extra":1}`), "slices[2].items[0]", "invalid session_test.Note"},
		{"item type mismatch value", replace(`{"Text":"a"}`, `{"Text":5}`), "slices[2].items[0]", "invalid session_test.Note"},
		{"item fails validation", replace(`{"name":"ok","n":0}`, `{"name":"much too long","n":0}`), "slices[0].items[0]", "invalid session_test.Checked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := session.UnmarshalSnapshot([]byte(tt.data), reg)
			var re *session.RestoreError
			require.ErrorAs(t, err, &re, "data: %s", tt.data)
			assert.Equal(t, tt.path, re.Path)
			assert.Contains(t, re.Error(), tt.reason)
			assert.Equal(t, session.Snapshot{}, snap, "nothing partial")
		})
	}

	// Validation failures keep serde's error for errors.As.
	_, err = session.UnmarshalSnapshot([]byte(strings.Replace(valid, `{"name":"ok","n":0}`, `{"name":"","n":0}`, 1)), reg)
	var ve *serde.ValidationError
	require.True(t, errors.As(err, &ve), "got %v", err)
	assert.Equal(t, "name", ve.Path)
}
