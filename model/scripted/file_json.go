package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/internal/jsontok"
)

// This file reads the JSON of a script: the values of its objects and
// lists as spans of the script, each knowing where it starts, so that every
// error can name the line and the path of its value.

// scriptParser reads one script. Every value it handles is a span of src, so
// each error can name its line.
type scriptParser struct {
	src []byte
}

// scriptSpan is one JSON value of the script: its text and where it starts.
type scriptSpan struct {
	raw []byte
	off int
}

// scriptMember is one key of a JSON object with its value.
type scriptMember struct {
	key string
	val scriptSpan
}

func (p *scriptParser) fail(at scriptSpan, field, format string, args ...any) error {
	return &scriptError{Line: p.line(at.off), Field: field, Message: fmt.Sprintf(format, args...)}
}

func (p *scriptParser) line(off int) int {
	return 1 + bytes.Count(p.src[:min(max(off, 0), len(p.src))], []byte("\n"))
}

func (p *scriptParser) script() ([]Turn, error) {
	if !json.Valid(p.src) {
		return nil, p.syntaxError()
	}
	whole := scriptSpan{raw: p.src}
	ms, err := p.object(whole, "", `the script must be a JSON object such as {"turns": [{"text": "Hello."}]}`)
	if err != nil {
		return nil, err
	}
	var turns scriptSpan
	found := false
	for _, m := range ms {
		if m.key != "turns" {
			return nil, p.fail(m.val, m.key, `unknown key; a script has only "turns"`)
		}
		turns, found = m.val, true
	}
	if !found {
		return nil, p.fail(whole, "turns", `missing; a script is {"turns": [...]}, a list of turns`)
	}
	return p.turns(turns, "turns", 0)
}

// syntaxError locates the first syntax error of the script.
func (p *scriptParser) syntaxError() error {
	if len(bytes.TrimSpace(p.src)) == 0 {
		return &scriptError{Message: `the script is empty; write {"turns": [{"text": "Hello."}]}`}
	}
	var v any
	err := json.Unmarshal(p.src, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &scriptError{Line: p.line(int(se.Offset)), Message: "not valid JSON: " + se.Error()}
	}
	return &scriptError{Message: "not valid JSON: the script ends in the middle of a value"}
}

// object splits an object into its members, refusing duplicates; what
// says what the value should have been, for a value that is no object.
func (p *scriptParser) object(v scriptSpan, field, what string) ([]scriptMember, error) {
	if scriptFirst(v.raw) != '{' {
		return nil, p.fail(v, field, "%s", what)
	}
	r := jsontok.NewReader(v.raw)
	if _, err := r.Next(); err != nil {
		return nil, p.fail(v, field, "not valid JSON: %v", err)
	}
	var ms []scriptMember
	seen := map[string]bool{}
	for r.More() {
		tok, err := r.Next()
		if err != nil {
			return nil, p.fail(v, field, "not valid JSON: %v", err)
		}
		key := r.Unquote(tok)
		val, err := p.next(r, v)
		if err != nil {
			return nil, err
		}
		path := scriptPath(field, key)
		if seen[key] {
			return nil, p.fail(val, path, "appears twice; give each key once")
		}
		seen[key] = true
		ms = append(ms, scriptMember{key: key, val: val})
	}
	return ms, nil
}

// list splits a list into its elements.
func (p *scriptParser) list(v scriptSpan, field, what string) ([]scriptSpan, error) {
	if scriptFirst(v.raw) != '[' {
		return nil, p.fail(v, field, "%s", what)
	}
	r := jsontok.NewReader(v.raw)
	if _, err := r.Next(); err != nil {
		return nil, p.fail(v, field, "not valid JSON: %v", err)
	}
	var out []scriptSpan
	for r.More() {
		el, err := p.next(r, v)
		if err != nil {
			return nil, err
		}
		out = append(out, el)
	}
	return out, nil
}

// next reads the next value from r, which reads in.raw, as a scriptSpan of
// the script: its bytes and where its first byte is.
func (p *scriptParser) next(r *jsontok.Reader, in scriptSpan) (scriptSpan, error) {
	tok, err := r.Next()
	if err != nil {
		return scriptSpan{}, p.fail(scriptSpan{off: in.off + r.Offset()}, "", "not valid JSON: %v", err)
	}
	end, err := r.Skip(tok)
	if err != nil {
		return scriptSpan{}, p.fail(scriptSpan{off: in.off + tok.Start}, "", "not valid JSON: %v", err)
	}
	return scriptSpan{raw: in.raw[tok.Start:end:end], off: in.off + tok.Start}, nil
}

func (p *scriptParser) str(v scriptSpan, field string) (string, error) {
	var s string
	if scriptFirst(v.raw) != '"' || json.Unmarshal(v.raw, &s) != nil {
		return "", p.fail(v, field, "must be a string")
	}
	return s, nil
}

func scriptPath(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func scriptFirst(raw []byte) byte {
	for _, c := range raw {
		if !scriptSpace(c) {
			return c
		}
	}
	return 0
}

func scriptSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// kind names the JSON kind of raw, for messages.
func scriptKind(raw []byte) string {
	switch c := scriptFirst(raw); {
	case c == '[':
		return "a list"
	case c == '{':
		return "an object"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}
