package prompt_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/serde"
)

// Verdict is a structured output.
type Verdict struct {
	Approve bool    `json:"approve"`
	Reasons []Issue `json:"reasons" validate:"dive"`
	Note    string  `json:"note,omitempty"`
}

// Issue is an item of a structured output.
type Issue struct {
	Line  int    `json:"line" validate:"min=1"`
	Title string `json:"title" validate:"required"`
}

func renderWith(t testing.TB, parts ...prompt.Part) *prompt.Rendered {
	t.Helper()
	parts = append([]prompt.Part{prompt.Markdown[prompt.NoParams]("Role", "Review the change.")}, parts...)
	r, err := mustNew(t, "ns", "out", parts...).Render()
	require.NoError(t, err)
	return r
}

func TestResponseFormatSection(t *testing.T) {
	r := renderWith(t, prompt.WithOutput[Issue]())
	const want = "## 1. Role\n\nReview the change.\n\n## 2. Response Format\n\n" +
		"Return only one JSON object that matches this JSON Schema, with no other text before or after it:\n\n" +
		"```json\n" +
		"{\n" +
		"  \"type\": \"object\",\n" +
		"  \"properties\": {\n" +
		"    \"line\": {\n" +
		"      \"type\": \"integer\",\n" +
		"      \"minimum\": 1\n" +
		"    },\n" +
		"    \"title\": {\n" +
		"      \"type\": \"string\",\n" +
		"      \"minLength\": 1\n" +
		"    }\n" +
		"  },\n" +
		"  \"required\": [\n" +
		"    \"line\",\n" +
		"    \"title\"\n" +
		"  ],\n" +
		"  \"additionalProperties\": false\n" +
		"}\n" +
		"```\n\n" +
		"Do not add extra keys."
	assert.Equal(t, want, r.Text)
	require.NotNil(t, r.Output)
	assert.Equal(t, reflect.TypeFor[Issue](), r.Output.Type())
	assert.False(t, r.Output.Array())
	assert.False(t, r.Output.AllowsExtraKeys())
	assert.JSONEq(t, `{"type":"object","properties":{"line":{"type":"integer","minimum":1},"title":{"type":"string","minLength":1}},"required":["line","title"],"additionalProperties":false}`, string(r.Output.Schema()))

	arr := renderWith(t, prompt.WithOutput[[]Issue](), prompt.AllowExtraKeys())
	assert.Contains(t, arr.Text, "## 2. Response Format\n\nReturn only one JSON object that matches this JSON Schema, "+
		"with no other text before or after it; its \"items\" array holds your answer:\n\n```json\n{\n  \"type\": \"object\",")
	assert.NotContains(t, arr.Text, "Do not add extra keys")
	assert.NotContains(t, arr.Text, "additionalProperties", "extra keys allowed: the schema does not forbid them")
	assert.True(t, arr.Output.Array())
	assert.True(t, arr.Output.AllowsExtraKeys())
}

// An array output is requested as an object whose "items" holds the
// array, since providers' strict structured output accepts only an object
// at the root: the schema the prompt shows, and the runner sends, is that
// object, and the instructions say so.
func TestArrayOutputIsAnObjectWithItems(t *testing.T) {
	arr := renderWith(t, prompt.WithOutput[[]Issue]())
	want := `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object",` +
		`"properties":{"line":{"type":"integer","minimum":1},"title":{"type":"string","minLength":1}},` +
		`"required":["line","title"],"additionalProperties":false}}},"required":["items"],"additionalProperties":false}`
	assert.JSONEq(t, want, string(arr.Output.Schema()))
	assert.Contains(t, arr.Text, "Return only one JSON object that matches this JSON Schema, with no other text before or after it; "+
		"its \"items\" array holds your answer:")
	assert.NotContains(t, arr.Text, "JSON array")
	var shown map[string]any
	body := arr.Text[strings.Index(arr.Text, "```json\n")+8 : strings.LastIndex(arr.Text, "\n```")]
	require.NoError(t, json.Unmarshal([]byte(body), &shown))
	assert.JSONEq(t, want, jsonText(t, shown), "the schema shown is the schema requested")

	got, err := prompt.ParseOutput[[]Issue](`{"items":[{"line":1,"title":"a"}]}`, arr)
	require.NoError(t, err)
	assert.Equal(t, []Issue{{1, "a"}}, got)
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestResponseFormatIsNumberedAfterEnabledSections(t *testing.T) {
	r := renderWith(t,
		prompt.Markdown[Flags]("Off", "x", prompt.WithEnabled(func(Flags) bool { return false })),
		prompt.WithOutput[Verdict](),
	)
	assert.Contains(t, r.Text, "Review the change.\n\n## 2. Response Format\n\n")
}

func TestAllowExtraKeysNeedsWithOutput(t *testing.T) {
	_, err := prompt.New("ns", "k", prompt.AllowExtraKeys())
	assert.EqualError(t, err, "prompt: AllowExtraKeys needs WithOutput, which declares the output it applies to")
	before := renderWith(t, prompt.AllowExtraKeys(), prompt.WithOutput[Verdict]())
	after := renderWith(t, prompt.WithOutput[Verdict](), prompt.AllowExtraKeys())
	assert.Equal(t, after.Text, before.Text, "the order of the two does not matter")
	assert.True(t, before.Output.AllowsExtraKeys())
}

func TestWithOutputRejectsOtherKinds(t *testing.T) {
	_, err := prompt.New("ns", "k", prompt.WithOutput[string]())
	assert.EqualError(t, err, "prompt: WithOutput[string]: the output must be a struct (a JSON object) or a slice (a JSON array)")
	_, err = prompt.New("ns", "k", prompt.WithOutput[struct{ C chan int }]())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "prompt: WithOutput[struct { C chan int }]: serde: schema of")
}

func TestParseOutput(t *testing.T) {
	obj := renderWith(t, prompt.WithOutput[Verdict]())
	want := Verdict{Approve: true, Reasons: []Issue{{Line: 3, Title: "typo"}}}
	tests := []struct {
		name string
		text string
	}{
		{"whole text", `{"approve":true,"reasons":[{"line":3,"title":"typo"}]}`},
		{"fenced json block", "Here is my verdict:\n```json\n{\"approve\":true,\"reasons\":[{\"line\":3,\"title\":\"typo\"}]}\n```\nThanks."},
		{"fenced block wins over earlier braces", "I considered {maybe} a lot.\n```json\n{\"approve\":true,\"reasons\":[{\"line\":3,\"title\":\"typo\"}]}\n```"},
		{"first balanced object in prose", "Verdict: {\"approve\":true,\"reasons\":[{\"line\":3,\"title\":\"typo\"}]} -- done {\"other\":1}"},
		{"surrounding white space", "\n\n  {\"approve\":true,\"reasons\":[{\"line\":3,\"title\":\"typo\"}]}  \n"},
		{"a bracket of prose before the object", "I checked [1] and [\"README.md\"]: {\"approve\":true,\"reasons\":[{\"line\":3,\"title\":\"typo\"}]}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := prompt.ParseOutput[Verdict](tt.text, obj)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}

	arr := renderWith(t, prompt.WithOutput[[]Issue]())
	for _, text := range []string{
		`[{"line":1,"title":"a"},{"line":2,"title":"b"}]`,
		`{"items":[{"line":1,"title":"a"},{"line":2,"title":"b"}]}`,
		"The issues:\n```json\n{\"items\": [{\"line\":1,\"title\":\"a\"},{\"line\":2,\"title\":\"b\"}]}\n```",
		`Issues: [{"line":1,"title":"a"},{"line":2,"title":"b"}].`,
	} {
		got, err := prompt.ParseOutput[[]Issue](text, arr)
		require.NoError(t, err, text)
		assert.Equal(t, []Issue{{1, "a"}, {2, "b"}}, got)
	}
}

func TestParseOutputFailures(t *testing.T) {
	obj := renderWith(t, prompt.WithOutput[Verdict]())
	arr := renderWith(t, prompt.WithOutput[[]Issue]())
	noOutput := renderWith(t)
	tests := []struct {
		name     string
		parse    func() error
		path     string
		reason   string
		msg      string
		hasSerde bool
	}{
		{"unknown key", func() error {
			_, err := prompt.ParseOutput[Verdict](`{"approve":true,"reasons":[],"score":3}`, obj)
			return err
		}, "score", "unknown field; allowed: approve, reasons, note", "prompt: structured output: score: unknown field; allowed: approve, reasons, note", true},
		{"nested unknown key", func() error {
			_, err := prompt.ParseOutput[Verdict](`{"approve":true,"reasons":[{"line":1,"title":"a","severity":"high"}]}`, obj)
			return err
		}, "reasons[0].severity", "unknown field; allowed: line, title", "prompt: structured output: reasons[0].severity: unknown field; allowed: line, title", true},
		{"wrong type", func() error {
			_, err := prompt.ParseOutput[Verdict](`{"approve":"yes","reasons":[]}`, obj)
			return err
		}, "approve", "must be a boolean, got a string", "prompt: structured output: approve: must be a boolean, got a string", true},
		{"failed validate tag", func() error {
			_, err := prompt.ParseOutput[Verdict](`{"approve":true,"reasons":[{"line":0,"title":"a"}]}`, obj)
			return err
		}, "reasons[0].line", "must be at least 1", "prompt: structured output: reasons[0].line: must be at least 1", true},
		{"several failures", func() error {
			_, err := prompt.ParseOutput[[]Issue](`[{"line":0,"title":""}]`, arr)
			return err
		}, "[0].line", "must be at least 1", "prompt: structured output: [0].line: must be at least 1; [0].title: is required", true},
		{"array expected", func() error {
			_, err := prompt.ParseOutput[[]Issue](`{"line":1,"title":"a"}`, arr)
			return err
		}, "", `expected a JSON array, or an object whose "items" is the array; got an object without "items"`, `prompt: structured output: expected a JSON array, or an object whose "items" is the array; got an object without "items"`, false},
		{"items with extra key", func() error {
			_, err := prompt.ParseOutput[[]Issue](`{"items":[],"total":0}`, arr)
			return err
		}, "total", "unknown field; allowed: items", "prompt: structured output: total: unknown field; allowed: items", false},
		{"items not an array", func() error {
			_, err := prompt.ParseOutput[[]Issue](`{"items":{}}`, arr)
			return err
		}, "items", "must be a JSON array", "prompt: structured output: items: must be a JSON array", false},
		{"failure inside items", func() error {
			_, err := prompt.ParseOutput[[]Issue](`{"items":[{"line":1,"title":"a"},{"line":"2","title":"b"}]}`, arr)
			return err
		}, "items[1].line", "must be an integer, got a string", "prompt: structured output: items[1].line: must be an integer, got a string", true},
		{"null", func() error {
			_, err := prompt.ParseOutput[[]Issue](`null`, arr)
			return err
		}, "", "expected a JSON array, got null", "prompt: structured output: expected a JSON array, got null", false},
		{"object expected", func() error {
			_, err := prompt.ParseOutput[Verdict](`[1, 2]`, obj)
			return err
		}, "", "must be an object, got an array", "prompt: structured output: must be an object, got an array", true},
		{"no JSON", func() error {
			_, err := prompt.ParseOutput[Verdict]("I approve.", obj)
			return err
		}, "", "", "prompt: structured output: expected a JSON object; no JSON value found in the model output; reply with exactly one JSON object or array, optionally inside a ```json fenced block", false},
		{"empty", func() error {
			_, err := prompt.ParseOutput[Verdict]("", obj)
			return err
		}, "", "", "prompt: structured output: expected a JSON object; no JSON value found in the model output; the output is empty", false},
		{"no output declared", func() error {
			_, err := prompt.ParseOutput[Verdict](`{}`, noOutput)
			return err
		}, "", "the prompt declares no structured output; declare it with prompt.WithOutput[prompt_test.Verdict]()", "prompt: structured output: the prompt declares no structured output; declare it with prompt.WithOutput[prompt_test.Verdict]()", false},
		{"nil rendered", func() error {
			_, err := prompt.ParseOutput[Verdict](`{}`, nil)
			return err
		}, "", "the prompt declares no structured output; declare it with prompt.WithOutput[prompt_test.Verdict]()", "", false},
		{"other output type", func() error {
			_, err := prompt.ParseOutput[Issue](`{}`, obj)
			return err
		}, "", "the prompt's output type is prompt_test.Verdict; call ParseOutput[prompt_test.Verdict]", "prompt: structured output: the prompt's output type is prompt_test.Verdict; call ParseOutput[prompt_test.Verdict]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse()
			var oe *prompt.OutputError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.path, oe.Path)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, oe.Reason)
			}
			if tt.msg != "" {
				assert.Equal(t, tt.msg, err.Error())
			}
			var se *serde.ValidationError
			assert.Equal(t, tt.hasSerde, errors.As(err, &se))
		})
	}
}

func TestParseOutputWithExtraKeysAllowed(t *testing.T) {
	obj := renderWith(t, prompt.WithOutput[Verdict](), prompt.AllowExtraKeys())
	got, err := prompt.ParseOutput[Verdict](`{"approve":true,"score":9,"reasons":[{"line":2,"title":"x","severity":"low"}]}`, obj)
	require.NoError(t, err)
	assert.Equal(t, Verdict{Approve: true, Reasons: []Issue{{2, "x"}}}, got)

	_, err = prompt.ParseOutput[Verdict](`{"approve":true,"reasons":[{"line":0,"title":"x"}]}`, obj)
	var oe *prompt.OutputError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "reasons[0].line", oe.Path)

	_, err = prompt.ParseOutput[Verdict](`{"approve":1,"reasons":[]}`, obj)
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "approve", oe.Path)
	assert.Equal(t, "must be a boolean, got a number", oe.Reason)

	arr := renderWith(t, prompt.WithOutput[[]Issue](), prompt.AllowExtraKeys())
	items, err := prompt.ParseOutput[[]Issue](`{"items":[{"line":1,"title":"a"}],"total":1}`, arr)
	require.NoError(t, err)
	assert.Equal(t, []Issue{{1, "a"}}, items)
}
