package chatcmd

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	tests := []struct {
		line string
		want request
	}{
		{"hello there", request{kind: message, text: "hello there"}},
		{"  spaced out  ", request{kind: message, text: "spaced out"}},
		{"", request{kind: message}},
		{"a/b and @c", request{kind: message, text: "a/b and @c"}},
		{"/exit", request{kind: command, name: "exit"}},
		{"/save  chat.json ", request{kind: command, name: "save", text: "chat.json"}},
		{"/", request{kind: command}},
		{"@explore find the tests", request{kind: mention, name: "explore", text: "find the tests"}},
		{"@code-reviewer, please review", request{kind: mention, name: "code-reviewer", text: "please review"}},
		{"@explore:", request{kind: mention, name: "explore"}},
		{"@ hi", request{kind: mention, text: "hi"}},
		{"@explore\tfind it", request{kind: mention, name: "explore", text: "find it"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, parse(tt.line), "%q", tt.line)
	}
}

// FuzzParse checks parse on any line: it never panics, a command or
// mention is what the line starts with, names hold no space, texts are
// trimmed and part of the line.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{"hello", "/save chat.json", "@explore find it", "@a,  b ", "/", "@", " /exit ", "@x\ty z", "/\x00 a"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r := parse(line)
		trimmed := strings.TrimSpace(line)
		switch r.kind {
		case command:
			if !strings.HasPrefix(trimmed, "/") {
				t.Fatalf("%q is no command", line)
			}
		case mention:
			if !strings.HasPrefix(trimmed, "@") {
				t.Fatalf("%q is no mention", line)
			}
		case message:
			if r.text != trimmed || r.name != "" {
				t.Fatalf("message %q: got %+v", line, r)
			}
		}
		if strings.IndexFunc(r.name, unicode.IsSpace) >= 0 {
			t.Fatalf("name %q holds a space", r.name)
		}
		if r.text != strings.TrimSpace(r.text) || !strings.Contains(line, r.text) {
			t.Fatalf("text %q of %q", r.text, line)
		}
		if r.kind == mention && r.name != "" {
			last, _ := utf8.DecodeLastRuneInString(r.name)
			if unicode.IsPunct(last) {
				t.Fatalf("mention %q ends with punctuation", r.name)
			}
		}
	})
}
