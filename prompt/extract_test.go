package prompt

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain object", `{"a":1}`, `{"a":1}`},
		{"trimmed", "\n  {\"a\":1}  \n", `{"a":1}`},
		{"array", `[1, 2]`, `[1, 2]`},
		{"scalar alone", `"just a string"`, `"just a string"`},
		{"json fence", "Here you go:\n```json\n{\"a\": 1}\n```\nDone.", `{"a": 1}`},
		{"JSON fence upper case", "```JSON\n[1]\n```", `[1]`},
		{"plain fence", "Sure:\n```\n{\"a\": 2}\n```", `{"a": 2}`},
		{"json fence wins over an earlier plain one", "```\n{\"plain\":1}\n```\n```json\n{\"json\":1}\n```", `{"json":1}`},
		{"other languages are skipped", "```go\nx := map[string]int{}\n```\n```json\n{\"a\":3}\n```", `{"a":3}`},
		{"invalid fence falls back", "```json\n{oops}\n```\nthen {\"a\":4}", `{"a":4}`},
		{"unterminated fence", "```json\n{\"a\": 5}", `{"a": 5}`},
		{"inline fence", "```{\"a\":6}```", `{"a":6}`},
		{"four backticks", "````json\n{\"a\":\"```\"}\n````", "{\"a\":\"```\"}"},
		{"embedded in prose", `The answer is {"a": {"b": [1, 2]}} as requested.`, `{"a": {"b": [1, 2]}}`},
		{"braces inside strings", `Result: {"text": "a } and { b", "n": 1} ok`, `{"text": "a } and { b", "n": 1}`},
		{"escaped quotes", `x {"q": "say \"}\" now"} y`, `{"q": "say \"}\" now"}`},
		{"first valid candidate", `I think {not json} but {"a": 7} and {"b": 8}`, `{"a": 7}`},
		{"nested valid inside invalid", `{ broken {"a": 8} }`, `{"a": 8}`},
		{"array in prose", `Items: [1, 2, 3].`, `[1, 2, 3]`},
		{"mismatched brackets", `{"a": [1, 2}] then [3]`, `[3]`},
		{"stray quote before", `He said "hello {"a": 9}`, `{"a": 9}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractJSON(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.True(t, json.Valid(got))
		})
	}
}

func TestExtractJSONObject(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"a bracket of prose before the object", `Step [1] done. The answer: {"a": 1}`, `{"a": 1}`},
		{"a JSON array before the object", `I read ["a.md", "b.md"] and found {"ok": true}.`, `{"ok": true}`},
		{"an object inside an array", `[{"a": 1}, 2]`, `[{"a": 1}, 2]`},
		{"an object inside an array in prose", `Result: [{"a": 1}, 2] ok`, `{"a": 1}`},
		{"no object: the array", `Items: [1, 2, 3].`, `[1, 2, 3]`},
		{"a fence still wins", "See {\"x\":0}\n```json\n[1]\n```", `[1]`},
		{"the first valid object", `{bad} [2] {"a": 7} {"b": 8}`, `{"a": 7}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractJSONObject(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	_, err := extractJSONObject("nothing here [")
	require.ErrorContains(t, err, "serde: no JSON value found in the model output; ")
}

func TestExtractJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		msg  string
	}{
		{"empty", "", "no JSON value found in the model output; the output is empty"},
		{"blank", " \n\t", "the output is empty"},
		{"prose", "I cannot help with that.", "reply with exactly one JSON object or array"},
		{"unbalanced", `{"a": 1`, "no JSON value found"},
		{"bad fence", "Hi\n```json\n{\"a\": }\n```", "the ```json block on line 2 is not valid JSON (at byte 7: invalid character '}'"},
		{"empty fence", "```json\n```", "the ```json block on line 1 is not valid JSON (the block is empty)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractJSON(tt.in)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Contains(t, err.Error(), tt.msg)
			assert.True(t, strings.HasPrefix(err.Error(), "serde: no JSON value found in the model output; "))
		})
	}
}

func TestExtractJSONIsBounded(t *testing.T) {
	inputs := map[string]string{
		"unclosed openers":  strings.Repeat("[", 200_000),
		"quote alternation": strings.Repeat(`{"`, 100_000),
		"invalid nesting":   strings.Repeat("[", 50_000) + "1,," + strings.Repeat("]", 50_000),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := extractJSON(in)
			require.Error(t, err)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

func TestExtractJSONCopies(t *testing.T) {
	text := `{"a":1}`
	got, err := extractJSON(text)
	require.NoError(t, err)
	got[2] = 'b'
	assert.Equal(t, `{"a":1}`, text)
}

func FuzzExtractJSON(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `{"a":1}`, "```json\n{\"a\":1}\n```", "```\n[1]\n```", "text {\"a\": \"}\"} text",
		`{"a": [1, 2}]`, `"\"{"`, "```json\n{bad}\n``` {\"ok\":true}", `[[[[`, `{"a":"\u00e9"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		check(t, text, extractJSON)
		check(t, text, extractJSONObject)
	})
}

func check(t *testing.T, text string, extract func(string) (json.RawMessage, error)) {
	{
		got, err := extract(text)
		if err != nil {
			if got != nil {
				t.Fatalf("error %v with a value %q", err, got)
			}
			if !strings.HasPrefix(err.Error(), "serde: no JSON value found in the model output; ") {
				t.Fatalf("unexpected error text: %v", err)
			}
			return
		}
		if !json.Valid(got) {
			t.Fatalf("extractJSON(%q) = %q: not valid JSON", text, got)
		}
		if utf8.ValidString(text) && !strings.Contains(text, string(got)) {
			t.Fatalf("extractJSON(%q) = %q: not taken from the text", text, got)
		}
	}
}
