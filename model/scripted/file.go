package scripted

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// maxScriptBytes bounds the size of a script LoadScript reads.
const maxScriptBytes = 8 << 20

// maxScriptNesting bounds how deeply when routes nest in a script.
const maxScriptNesting = 16

// scriptError says why LoadScript could not read a script: where (the line
// and the JSON path of the value) and what to change.
type scriptError struct {
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
func (e *scriptError) Error() string {
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
//   - "error": {"message", "kind", "retry_after"} (Fail with the error a
//     cassette replays): kind is "rate_limited", "context_length", "auth" or
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
// wrong type or a turn that is none or several of the above is an error
// naming the line, the field and what to write instead.
// A script is at most 8 MiB, with routes nested at most 16 deep.
func LoadScript(r io.Reader) (*Model, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxScriptBytes+1))
	if err != nil {
		return nil, fmt.Errorf("scripted: read the script: %w", err)
	}
	if len(data) > maxScriptBytes {
		return nil, &scriptError{Message: fmt.Sprintf("the script is larger than %d MiB; split it or shorten its texts", maxScriptBytes>>20)}
	}
	p := &scriptParser{src: data}
	turns, err := p.script()
	if err != nil {
		return nil, err
	}
	return New(turns...), nil
}

// scriptQuoted quotes each of list, for messages that name keys.
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
