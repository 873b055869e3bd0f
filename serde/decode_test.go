package serde

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type dStep struct {
	Title string `json:"title" validate:"required,max=20"`
	Done  bool   `json:"done,omitempty"`
}

type dBase struct {
	ID string `json:"id,omitempty"`
}

type dPlan struct {
	dBase
	Goal   string            `json:"goal" validate:"required"`
	Steps  []dStep           `json:"steps,omitempty" validate:"dive"`
	Limit  int8              `json:"limit,omitempty"`
	Labels map[string]dStep  `json:"labels,omitempty"`
	Extra  map[string]any    `json:"extra,omitempty"`
	When   *time.Time        `json:"when,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Count  int               `json:"count,omitempty,string"`
	Meta   map[string]string `json:"meta,omitempty"`
}

func TestDecode(t *testing.T) {
	when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want dPlan
	}{
		{"minimal", `{"goal":"g"}`, dPlan{Goal: "g"}},
		{"white space around", " \n\t{\"goal\":\"g\"}\r\n ", dPlan{Goal: "g"}},
		{"embedded field", `{"goal":"g","id":"x"}`, dPlan{dBase: dBase{ID: "x"}, Goal: "g"}},
		{"escaped key", `{"go\u0061l":"g"}`, dPlan{Goal: "g"}},
		{"nested", `{"goal":"g","steps":[{"title":"a","done":true}],"labels":{"k":{"title":"b"}}}`,
			dPlan{Goal: "g", Steps: []dStep{{"a", true}}, Labels: map[string]dStep{"k": {Title: "b"}}}},
		{"any values are not checked", `{"goal":"g","extra":{"whatever":{"x":[1]}}}`,
			dPlan{Goal: "g", Extra: map[string]any{"whatever": map[string]any{"x": []any{1.0}}}}},
		{"time", `{"goal":"g","when":"2025-01-02T03:04:05Z"}`, dPlan{Goal: "g", When: &when}},
		{"raw message", `{"goal":"g","raw":{"a": 1}}`, dPlan{Goal: "g", Raw: json.RawMessage(`{"a": 1}`)}},
		{"string option", `{"goal":"g","count":"12"}`, dPlan{Goal: "g", Count: 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode[dPlan]([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		path   string // for a *ValidationError
		reason string // for a *ValidationError
		msg    string // for a plain error: a substring of its message
	}{
		{name: "unknown member", in: `{"goal":"g","gaol":1}`,
			path: "gaol", reason: "unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta"},
		{name: "unknown nested member", in: `{"goal":"g","steps":[{"title":"a"},{"titel":"b"}]}`,
			path: "steps[1].titel", reason: "unknown field; allowed: title, done"},
		{name: "unknown member in map value", in: `{"goal":"g","labels":{"k":{"x":1}}}`,
			path: "labels[k].x", reason: "unknown field; allowed: title, done"},
		{name: "string expected", in: `{"goal":1}`, path: "goal", reason: "must be a string, got a number"},
		{name: "string expected in slice", in: `{"goal":"g","steps":[{"title":"a"},{"title":{}}]}`,
			path: "steps[1].title", reason: "must be a string, got an object"},
		{name: "boolean expected", in: `{"goal":"g","steps":[{"title":"a","done":"yes"}]}`,
			path: "steps[0].done", reason: "must be a boolean, got a string"},
		{name: "array expected", in: `{"goal":"g","steps":{}}`, path: "steps", reason: "must be an array, got an object"},
		{name: "object expected", in: `{"goal":"g","labels":[]}`, path: "labels", reason: "must be an object, got an array"},
		{name: "integer expected", in: `{"goal":"g","limit":1.5}`, path: "limit", reason: "must be an integer, got a number (1.5)"},
		{name: "integer out of range", in: `{"goal":"g","limit":300}`, path: "limit", reason: "must be an integer that fits in 8 bits, got 300"},
		{name: "top-level type", in: `[1]`, path: "", reason: "must be an object, got an array"},
		{name: "null", in: ` null `, path: "", reason: "must be a JSON object, not null"},
		{name: "validation", in: `{"goal":""}`, path: "goal", reason: "is required"},
		{name: "validation in slice", in: `{"goal":"g","steps":[{"title":""}]}`, path: "steps[0].title", reason: "is required"},
		{name: "trailing data", in: `{"goal":"g"} {}`, msg: "serde: unexpected data after the JSON value at byte 13"},
		{name: "trailing garbage", in: `{"goal":"g"}x`, msg: "serde: unexpected data after the JSON value at byte 12"},
		{name: "syntax", in: `{"goal":"g",}`, msg: "serde: invalid JSON at byte 13: invalid character '}'"},
		{name: "syntax after white space", in: "\n\n{]", msg: "serde: invalid JSON at byte 4"},
		{name: "truncated", in: `{"goal":"g"`, msg: "serde: unexpected end of JSON input at byte 11"},
		{name: "empty", in: ``, msg: "serde: empty input"},
		{name: "blank", in: " \n ", msg: "serde: empty input"},
		{name: "time format", in: `{"goal":"g","when":"yesterday"}`, msg: "serde: parsing time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode[dPlan]([]byte(tt.in))
			require.Error(t, err)
			assert.Zero(t, got, "the zero value comes back with an error")
			var ve *ValidationError
			if tt.msg != "" {
				assert.False(t, errors.As(err, &ve), "want a plain error, got %#v", err)
				assert.Contains(t, err.Error(), tt.msg)
				return
			}
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.path, ve.Path)
			assert.Equal(t, tt.reason, ve.Reason)
		})
	}
}

func TestDecodeIntoKeepsDefaults(t *testing.T) {
	v := dPlan{Goal: "default goal", Limit: 7, Meta: map[string]string{"a": "1"}}
	require.NoError(t, DecodeInto([]byte(`{"limit":9,"meta":{"b":"2"}}`), &v))
	assert.Equal(t, "default goal", v.Goal)
	assert.Equal(t, int8(9), v.Limit)
	assert.Equal(t, map[string]string{"a": "1", "b": "2"}, v.Meta, "maps are merged, as encoding/json does")

	v = dPlan{Goal: "keep"}
	err := DecodeInto([]byte(`{"goal":""}`), &v)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve, "an explicit empty value replaces the default and is validated")
	assert.Equal(t, "goal", ve.Path)
}

func TestDecodeIntoNeedsPointer(t *testing.T) {
	var p *dPlan
	for _, v := range []any{nil, dPlan{}, p} {
		err := DecodeInto([]byte(`{}`), v)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "DecodeInto needs a non-nil pointer")
	}
}

func TestDecodeValue(t *testing.T) {
	got, err := DecodeValue([]byte(`{"title":"a"}`), reflect.TypeFor[dStep]())
	require.NoError(t, err)
	assert.Equal(t, dStep{Title: "a"}, got, "a value of the type, not a pointer")

	got, err = DecodeValue([]byte(`{"title":"a"}`), reflect.TypeFor[*dStep]())
	require.NoError(t, err)
	assert.Equal(t, &dStep{Title: "a"}, got)

	got, err = DecodeValue([]byte(`[1,2]`), reflect.TypeFor[[]int]())
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2}, got)

	_, err = DecodeValue([]byte(`{"title":""}`), reflect.TypeFor[dStep]())
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)

	_, err = DecodeValue([]byte(`null`), reflect.TypeFor[*dStep]())
	require.ErrorAs(t, err, &ve, "null for a pointer to a struct is rejected too")

	_, err = DecodeValue([]byte(`{}`), nil)
	require.Error(t, err)
}

func TestDecodeOtherTargets(t *testing.T) {
	n, err := Decode[int]([]byte(` 42 `))
	require.NoError(t, err)
	assert.Equal(t, 42, n)

	steps, err := Decode[[]dStep]([]byte(`[{"title":"a"},{"title":""}]`))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "[1].title", ve.Path)
	assert.Nil(t, steps)

	m, err := Decode[map[string]int]([]byte(`null`))
	require.NoError(t, err, "null is only rejected for structs")
	assert.Nil(t, m)

	s, err := Decode[string]([]byte(`"x" "y"`))
	require.Error(t, err)
	assert.Empty(t, s)
}

// TestDecodePooledDecoders mixes failing and succeeding inputs, from many
// goroutines, so that decoders returned to the pool are proven clean.
func TestDecodePooledDecoders(t *testing.T) {
	inputs := []struct {
		in   string
		want string // goal, or "" for an error
	}{
		{`{"goal":"a"}`, "a"},
		{`{"goal":"b"}  `, "b"},
		{`{"goal":`, ""},
		{`{"goal":"c"} {"goal":"x"}`, ""},
		{`{"goal":"d"}`, "d"},
		{`"str"`, ""},
		{`{"goal":"e","bad":1}`, ""},
		{"\n{\"goal\":\"f\"}", "f"},
		{`{"goal":"g","steps":[{"title":1}]}`, ""},
		{`{"goal":"h"}`, "h"},
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				tc := inputs[(i+g)%len(inputs)]
				got, err := Decode[dPlan]([]byte(tc.in))
				if tc.want == "" {
					assert.Error(t, err, tc.in)
					continue
				}
				if assert.NoError(t, err, tc.in) {
					assert.Equal(t, tc.want, got.Goal)
				}
			}
		})
	}
	wg.Wait()
}

func TestDecodeLargeInput(t *testing.T) {
	title := strings.Repeat("x", 20)
	var b strings.Builder
	b.WriteString(`{"goal":"g","steps":[`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"title":%q}`, title)
	}
	b.WriteString(`]}`)
	got, err := Decode[dPlan]([]byte(b.String()))
	require.NoError(t, err)
	assert.Len(t, got.Steps, 5000)

	_, err = Decode[dPlan]([]byte(b.String() + "x"))
	require.ErrorContains(t, err, "unexpected data after the JSON value")
}

// twoFields is the parameter struct of a typical tool.
type twoFields struct {
	Path  string `json:"path" validate:"required,ascii,max=200"`
	Limit int    `json:"limit,omitempty" validate:"gte=0,lte=5000"`
}

func BenchmarkDecodeTwoFields(b *testing.B) {
	data := []byte(`{"path": "/src/main.go", "limit": 200}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode[twoFields](data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTwoFieldsInvalid(b *testing.B) {
	data := []byte(`{"path": "/src/main.go", "limit": 9000}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode[twoFields](data); err == nil {
			b.Fatal("want an error")
		}
	}
}
