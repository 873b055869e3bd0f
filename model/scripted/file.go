package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/offshoot-dev/offshoot/model"
)

// maxScriptBytes bounds the size of a script LoadScript reads.
const maxScriptBytes = 8 << 20

// maxScriptNesting bounds how deeply when routes nest in a script.
const maxScriptNesting = 16

// ScriptError says why LoadScript could not read a script: where (the line
// and the JSON path of the value) and what to change.
type ScriptError struct {
	// Line is the 1-based line of the value at fault; 0 when the whole
	// script is.
	Line int
	// Field is the JSON path of the value, such as "turns[2].tool_calls[0].name".
	Field string
	// Message says what is wrong and what to write instead.
	Message string
}

// Error returns "scripted: script line LINE: FIELD: MESSAGE", leaving out
// the parts that are not known.
func (e *ScriptError) Error() string {
	var b strings.Builder
	b.WriteString("scripted: script")
	if e.Line > 0 {
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// LoadScript reads a script of turns written as JSON and returns the Model
// that plays it, as New would with the same turns. It lets a program that
// takes its model from configuration — a command-line tool under test —
// run on a scripted model:
//
//	{"turns": [
//	  {"when": {"system_contains": "You review code"}, "turns": [
//	    {"tool_calls": [{"name": "read_file", "arguments": {"file_path": "main.go"}}]},
//	    {"text": "main.go ignores the error of Close."}
//	  ]},
//	  {"json": {"title": "Fix Close", "priority": 2}},
//	  {"error": {"kind": "rate_limited", "message": "slow down", "retry_after": "2s"}},
//	  {"text": "Done.", "usage": {"input_tokens": 12, "output_tokens": 2, "total_tokens": 14}},
//	  {"text": "Anything else?", "repeat": true}
//	]}
//
// Each turn is one of:
//   - "text": an answer (Text); with "tool_calls" as well, an answer that
//     has both (finish reason tool_calls);
//   - "tool_calls": a list of {"name", "arguments", "id"} calls (ToolCalls);
//     "arguments" is a JSON object, or a string holding the raw arguments
//     exactly as a model would send them (malformed ones included); "id" is
//     optional;
//   - "json": any JSON value, the answer of a structured-output turn (JSON);
//   - "error": {"message", "kind", "retry_after"} (Fail with a
//     *RecordedError): kind is "rate_limited", "context_length", "auth" or
//     left out, and retry_after a duration such as "2s", for rate limits only;
//   - "when" with "turns": a route (When) for the requests that match every
//     condition given: "system_contains", "last_user_contains" (substrings)
//     and "has_tool_result" (a tool name). Routes nest.
//
// "usage" ({"input_tokens", "output_tokens", "total_tokens"}) replaces a
// turn's estimated usage (WithUsage), and "repeat": true keeps a turn — or a
// route's last turn — in place (Repeat).
//
// Decoding is strict: an unknown key, a key given twice, a value of the
// wrong type or a turn that is none or several of the above is a
// *ScriptError naming the line, the field and what to write instead.
// A script is at most 8 MiB, with routes nested at most 16 deep.
func LoadScript(r io.Reader) (*Model, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxScriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("scripted: read the script: %w", err)
	}
	if len(data) > maxScriptBytes {
		return nil, &ScriptError{Message: fmt.Sprintf("the script is larger than %d MiB; split it or shorten its texts", maxScriptBytes>>20)}
	}
	p := &scriptParser{src: data}
	turns, err := p.script()
	if err != nil {
		return nil, err
	}
	return New(turns...), nil
}

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
	return &ScriptError{Line: p.line(at.off), Field: field, Message: fmt.Sprintf(format, args...)}
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
		return &ScriptError{Message: `the script is empty; write {"turns": [{"text": "Hello."}]}`}
	}
	var v any
	err := json.Unmarshal(p.src, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ScriptError{Line: p.line(int(se.Offset)), Message: "not valid JSON: " + se.Error()}
	}
	return &ScriptError{Message: "not valid JSON: the script ends in the middle of a value"}
}

// object splits an object into its members, refusing duplicates; what
// says what the value should have been, for a value that is no object.
func (p *scriptParser) object(v scriptSpan, field, what string) ([]scriptMember, error) {
	if scriptFirst(v.raw) != '{' {
		return nil, p.fail(v, field, "%s", what)
	}
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, p.fail(v, field, "not valid JSON: %v", err)
	}
	var ms []scriptMember
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, p.fail(v, field, "not valid JSON: %v", err)
		}
		key, _ := tok.(string)
		val, err := p.next(dec, v)
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
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, p.fail(v, field, "not valid JSON: %v", err)
	}
	var out []scriptSpan
	for dec.More() {
		el, err := p.next(dec, v)
		if err != nil {
			return nil, err
		}
		out = append(out, el)
	}
	return out, nil
}

// next reads the next value from dec, which reads in.raw, as a scriptSpan of
// the script.
func (p *scriptParser) next(dec *json.Decoder, in scriptSpan) (scriptSpan, error) {
	start := int(dec.InputOffset())
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return scriptSpan{}, p.fail(scriptSpan{off: in.off + start}, "", "not valid JSON: %v", err)
	}
	for start < len(in.raw) && (in.raw[start] == ':' || in.raw[start] == ',' || scriptSpace(in.raw[start])) {
		start++
	}
	return scriptSpan{raw: raw, off: in.off + start}, nil
}

// turns reads a list of turns.
func (p *scriptParser) turns(v scriptSpan, field string, depth int) ([]Turn, error) {
	els, err := p.list(v, field, `must be a list of turns, such as [{"text": "Hello."}]`)
	if err != nil {
		return nil, err
	}
	out := make([]Turn, 0, len(els))
	for i, el := range els {
		t, err := p.turn(el, fmt.Sprintf("%s[%d]", field, i), depth)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// scriptTurnKeys are the keys of a turn, in the order error messages list them.
var scriptTurnKeys = []string{"text", "tool_calls", "json", "error", "when", "turns", "usage", "repeat"}

func (p *scriptParser) turn(v scriptSpan, field string, depth int) (Turn, error) {
	ms, err := p.object(v, field, `must be an object such as {"text": "Hello."}`)
	if err != nil {
		return Turn{}, err
	}
	f := map[string]scriptSpan{}
	for _, m := range ms {
		if !slices.Contains(scriptTurnKeys, m.key) {
			return Turn{}, p.fail(m.val, scriptPath(field, m.key), "unknown key; a turn has %s", strings.Join(scriptQuoted(scriptTurnKeys), ", "))
		}
		f[m.key] = m.val
	}
	var kinds []string
	for _, k := range []string{"text", "tool_calls", "json", "error", "when"} {
		if _, ok := f[k]; ok {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 2 && kinds[0] == "text" && kinds[1] == "tool_calls" {
		kinds = []string{"tool_calls"}
	}
	switch {
	case len(kinds) == 0:
		if t, ok := f["turns"]; ok {
			return Turn{}, p.fail(t, scriptPath(field, "turns"), `nested turns belong to a route: add "when": {"system_contains": "…"} beside them`)
		}
		return Turn{}, p.fail(v, field, `give one of "text", "tool_calls", "json", "error" or "when"`)
	case len(kinds) > 1:
		return Turn{}, p.fail(v, field, "give only one of %s in a turn (text may go with tool_calls); make two turns instead", strings.Join(scriptQuoted(kinds), " and "))
	}
	if t, ok := f["turns"]; ok && kinds[0] != "when" {
		return Turn{}, p.fail(t, scriptPath(field, "turns"), `nested turns belong to a route: use "when" instead of %q, or move these turns up`, kinds[0])
	}

	var t Turn
	switch kinds[0] {
	case "text":
		s, err := p.str(f["text"], scriptPath(field, "text"))
		if err != nil {
			return Turn{}, err
		}
		t = Text(s)
	case "tool_calls":
		t, err = p.toolCallsTurn(f, field)
	case "json":
		t = JSON(json.RawMessage(f["json"].raw))
	case "error":
		t, err = p.errorTurn(f["error"], scriptPath(field, "error"))
	case "when":
		t, err = p.route(f, field, depth)
	}
	if err != nil {
		return Turn{}, err
	}
	if u, ok := f["usage"]; ok {
		if kinds[0] == "error" || kinds[0] == "when" {
			return Turn{}, p.fail(u, scriptPath(field, "usage"), "only an answer has usage; move it to a text, tool_calls or json turn")
		}
		usage, err := p.usage(u, scriptPath(field, "usage"))
		if err != nil {
			return Turn{}, err
		}
		t = t.WithUsage(usage)
	}
	if r, ok := f["repeat"]; ok {
		var repeat bool
		if err := json.Unmarshal(r.raw, &repeat); err != nil {
			return Turn{}, p.fail(r, scriptPath(field, "repeat"), "must be true or false")
		}
		if repeat {
			t = Repeat(t)
		}
	}
	return t, nil
}

func (p *scriptParser) str(v scriptSpan, field string) (string, error) {
	var s string
	if scriptFirst(v.raw) != '"' || json.Unmarshal(v.raw, &s) != nil {
		return "", p.fail(v, field, "must be a string")
	}
	return s, nil
}

// toolCallsTurn reads "tool_calls", with "text" when the turn has one.
func (p *scriptParser) toolCallsTurn(f map[string]scriptSpan, field string) (Turn, error) {
	path := scriptPath(field, "tool_calls")
	els, err := p.list(f["tool_calls"], path, `must be a list of calls, such as [{"name": "read_file", "arguments": {"file_path": "a.go"}}]`)
	if err != nil {
		return Turn{}, err
	}
	if len(els) == 0 {
		return Turn{}, p.fail(f["tool_calls"], path, `is empty; give at least one call, or answer with "text" instead`)
	}
	calls := make([]model.ToolCall, 0, len(els))
	for i, el := range els {
		c, err := p.toolCall(el, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return Turn{}, err
		}
		calls = append(calls, c)
	}
	text, hasText := f["text"]
	if !hasText {
		return ToolCalls(calls...), nil
	}
	s, err := p.str(text, scriptPath(field, "text"))
	if err != nil {
		return Turn{}, err
	}
	return textAndCalls(s, calls), nil
}

// textAndCalls is a turn that answers with text and tool calls together.
// Like ToolCalls it gives a call without an id "call_<number of request
// messages>_<index>", and like Text it estimates the usage:
// InputTokensPerMessage per request message, one output token per four
// bytes of the text and the calls.
func textAndCalls(text string, calls []model.ToolCall) Turn {
	return Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		out := slices.Clone(calls)
		size := len(text)
		for i := range out {
			if out[i].ID == "" {
				out[i].ID = fmt.Sprintf("call_%d_%d", len(req.Messages), i)
			}
			size += len(out[i].Name) + len(out[i].Arguments)
		}
		in := InputTokensPerMessage * len(req.Messages)
		outTokens := (size + 3) / 4
		return &model.Response{
			Message:      model.AssistantMessage(text, out...),
			FinishReason: model.FinishToolCalls,
			Usage:        model.Usage{InputTokens: in, OutputTokens: outTokens, TotalTokens: in + outTokens},
		}, nil
	})
}

func (p *scriptParser) toolCall(v scriptSpan, field string) (model.ToolCall, error) {
	ms, err := p.object(v, field, `must be an object such as {"name": "read_file", "arguments": {"file_path": "a.go"}}`)
	if err != nil {
		return model.ToolCall{}, err
	}
	var c model.ToolCall
	for _, m := range ms {
		path := scriptPath(field, m.key)
		switch m.key {
		case "name":
			if c.Name, err = p.str(m.val, path); err != nil {
				return model.ToolCall{}, err
			}
			if strings.TrimSpace(c.Name) == "" {
				return model.ToolCall{}, p.fail(m.val, path, "is empty; give the name of the tool to call")
			}
		case "id":
			if c.ID, err = p.str(m.val, path); err != nil {
				return model.ToolCall{}, err
			}
		case "arguments":
			switch scriptFirst(m.val.raw) {
			case '{':
				var b bytes.Buffer
				if err := json.Compact(&b, m.val.raw); err != nil {
					return model.ToolCall{}, p.fail(m.val, path, "not valid JSON: %v", err)
				}
				c.Arguments = b.String()
			case '"':
				if c.Arguments, err = p.str(m.val, path); err != nil {
					return model.ToolCall{}, err
				}
			default:
				return model.ToolCall{}, p.fail(m.val, path, `must be a JSON object, or a string holding the raw arguments (such as "{\"path\": 1"), not %s`, scriptKind(m.val.raw))
			}
		default:
			return model.ToolCall{}, p.fail(m.val, path, `unknown key; a tool call has "name", "arguments" and "id"`)
		}
	}
	if c.Name == "" {
		return model.ToolCall{}, p.fail(v, scriptPath(field, "name"), "missing; give the name of the tool to call")
	}
	return c, nil
}

// scriptErrorKinds are the kinds an error turn may name.
var scriptErrorKinds = []string{"rate_limited", "context_length", "auth"}

func (p *scriptParser) errorTurn(v scriptSpan, field string) (Turn, error) {
	ms, err := p.object(v, field, `must be an object such as {"message": "the server is down"}`)
	if err != nil {
		return Turn{}, err
	}
	e := &RecordedError{}
	var retry *scriptSpan
	for _, m := range ms {
		path := scriptPath(field, m.key)
		switch m.key {
		case "message":
			if e.Message, err = p.str(m.val, path); err != nil {
				return Turn{}, err
			}
		case "kind":
			if e.Kind, err = p.str(m.val, path); err != nil {
				return Turn{}, err
			}
			if !slices.Contains(scriptErrorKinds, e.Kind) {
				return Turn{}, p.fail(m.val, path, "unknown kind %q; use %s, or leave kind out for any other error", scriptClip(e.Kind), strings.Join(scriptQuoted(scriptErrorKinds), ", "))
			}
		case "retry_after":
			s, err := p.str(m.val, path)
			if err != nil {
				return Turn{}, err
			}
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return Turn{}, p.fail(m.val, path, "must be a duration such as \"2s\" or \"500ms\", not %q", scriptClip(s))
			}
			e.RetryAfter = d
			retry = &m.val
		default:
			return Turn{}, p.fail(m.val, path, `unknown key; an error has "message", "kind" and "retry_after"`)
		}
	}
	if strings.TrimSpace(e.Message) == "" {
		return Turn{}, p.fail(v, scriptPath(field, "message"), "missing; say what the error is, as the provider would")
	}
	if retry != nil && e.Kind != "rate_limited" {
		return Turn{}, p.fail(*retry, scriptPath(field, "retry_after"), `only a rate limit has a wait; add "kind": "rate_limited" or remove retry_after`)
	}
	return Fail(e), nil
}

// scriptMatcherKeys are the conditions of a route.
var scriptMatcherKeys = []string{"system_contains", "last_user_contains", "has_tool_result"}

func (p *scriptParser) route(f map[string]scriptSpan, field string, depth int) (Turn, error) {
	path := scriptPath(field, "when")
	if depth >= maxScriptNesting {
		return Turn{}, p.fail(f["when"], path, "routes nest more than %d deep; flatten the script", maxScriptNesting)
	}
	ms, err := p.object(f["when"], path, `must be an object such as {"system_contains": "You review code"}`)
	if err != nil {
		return Turn{}, err
	}
	var matchers []Matcher
	for _, m := range ms {
		mpath := scriptPath(path, m.key)
		if !slices.Contains(scriptMatcherKeys, m.key) {
			return Turn{}, p.fail(m.val, mpath, "unknown condition; a route matches on %s", strings.Join(scriptQuoted(scriptMatcherKeys), ", "))
		}
		s, err := p.str(m.val, mpath)
		if err != nil {
			return Turn{}, err
		}
		if s == "" {
			return Turn{}, p.fail(m.val, mpath, "is empty, which matches every request; give the text to look for")
		}
		switch m.key {
		case "system_contains":
			matchers = append(matchers, SystemContains(s))
		case "last_user_contains":
			matchers = append(matchers, LastUserContains(s))
		case "has_tool_result":
			matchers = append(matchers, HasToolResult(s))
		}
	}
	if len(matchers) == 0 {
		return Turn{}, p.fail(f["when"], path, "has no condition; give one of %s", strings.Join(scriptQuoted(scriptMatcherKeys), ", "))
	}
	ts, ok := f["turns"]
	if !ok {
		return Turn{}, p.fail(f["when"], scriptPath(field, "turns"), `missing; a route answers with its own list of turns: "turns": [{"text": "…"}]`)
	}
	turns, err := p.turns(ts, scriptPath(field, "turns"), depth+1)
	if err != nil {
		return Turn{}, err
	}
	if len(turns) == 0 {
		return Turn{}, p.fail(ts, scriptPath(field, "turns"), "is empty; give the route at least one turn")
	}
	m := matchers[0]
	if len(matchers) > 1 {
		m = All(matchers...)
	}
	return When(m, turns...), nil
}

func (p *scriptParser) usage(v scriptSpan, field string) (model.Usage, error) {
	ms, err := p.object(v, field, `must be an object such as {"input_tokens": 12, "output_tokens": 3}`)
	if err != nil {
		return model.Usage{}, err
	}
	var u model.Usage
	total := false
	for _, m := range ms {
		path := scriptPath(field, m.key)
		var dst *int
		switch m.key {
		case "input_tokens":
			dst = &u.InputTokens
		case "output_tokens":
			dst = &u.OutputTokens
		case "total_tokens":
			dst, total = &u.TotalTokens, true
		default:
			return model.Usage{}, p.fail(m.val, path, `unknown key; usage has "input_tokens", "output_tokens" and "total_tokens"`)
		}
		if err := json.Unmarshal(m.val.raw, dst); err != nil || *dst < 0 {
			return model.Usage{}, p.fail(m.val, path, "must be a whole number of tokens, 0 or more")
		}
	}
	if !total {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	return u, nil
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

func scriptQuoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = `"` + s + `"`
	}
	return out
}

// clip shortens a value quoted back in a message.
func scriptClip(s string) string {
	const n = 40
	r := []rune(s)
	if len(r) <= n {
		return strings.Map(scriptPrintable, s)
	}
	return strings.Map(scriptPrintable, string(r[:n])) + "…"
}

func scriptPrintable(r rune) rune {
	if unicode.IsPrint(r) {
		return r
	}
	return '?'
}
