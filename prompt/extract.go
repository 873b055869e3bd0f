package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// extractJSON finds the JSON value in a model's reply, leniently, for
// structured output. It tries, in order:
//
//  1. a fenced code block marked ```json whose content is valid JSON, then
//     an unmarked ``` block whose content is;
//  2. the whole text, trimmed, when it is valid JSON;
//  3. the first balanced {…} or […] in the text that is valid JSON (braces
//     inside JSON strings do not count).
//
// What it returns is always valid JSON (a copy, not sharing memory with
// text). It does not check the value's shape: decode it with Decode.
func extractJSON(text string) (json.RawMessage, error) {
	return extract(text, false)
}

// extractJSONObject is extractJSON for an answer that should be a JSON
// object. In the third step it takes the first balanced {…} that is valid
// JSON even when a bracketed fragment comes before it ("Step [1]: …
// {"a": 1}" gives the object, not [1]); only when the text holds no such
// object does it take the first […].
func extractJSONObject(text string) (json.RawMessage, error) {
	return extract(text, true)
}

func extract(text string, wantObject bool) (json.RawMessage, error) {
	var badFence string
	for _, lang := range []string{"json", ""} {
		for b := range fencedBlocks(text) {
			if b.lang != lang {
				continue
			}
			body := strings.TrimSpace(b.body)
			if body != "" && gjson.Valid(body) {
				return json.RawMessage(body), nil
			}
			if lang == "json" && badFence == "" {
				badFence = fmt.Sprintf("the ```json block on line %d is not valid JSON (%s)", b.line, jsonProblem(body))
			}
		}
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil, errors.New("serde: no JSON value found in the model output; the output is empty")
	}
	if gjson.Valid(trimmed) {
		return json.RawMessage(trimmed), nil
	}
	var found string
	var exhausted bool
	if wantObject {
		found, exhausted = firstBalancedJSON(text, "{")
	}
	if found == "" && !exhausted {
		found, exhausted = firstBalancedJSON(text, "{[")
	}
	if found != "" {
		return json.RawMessage(found), nil
	}
	hint := "reply with exactly one JSON object or array, optionally inside a ```json fenced block"
	switch {
	case badFence != "":
		hint = badFence
	case exhausted:
		hint = "gave up searching a long output with many unbalanced brackets; " + hint
	}
	return nil, errors.New("serde: no JSON value found in the model output; " + hint)
}

// jsonProblem describes why s is not valid JSON, using encoding/json's
// message (which gives the byte offset).
func jsonProblem(s string) string {
	if s == "" {
		return "the block is empty"
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Sprintf("at byte %d: %v", syn.Offset, err)
		}
		return err.Error()
	}
	return "not accepted"
}

// fence is one fenced code block.
type fence struct {
	lang string // "json" or "" (unmarked); other languages are skipped
	body string // the content, fences excluded
	line int    // 1-based line of the opening fence
}

// fencedBlocks yields the ```json and unmarked ``` blocks of text in order.
// A block left open runs to the end of the text (truncated output). A
// block written on one line, ```{…}```, counts as unmarked.
func fencedBlocks(text string) func(yield func(fence) bool) {
	return func(yield func(fence) bool) {
		pos := 0
		for {
			i := strings.Index(text[pos:], "```")
			if i < 0 {
				return
			}
			open := pos + i
			n := 3
			for open+n < len(text) && text[open+n] == '`' {
				n++
			}
			marker := text[open : open+n]
			rest := text[open+n:]
			info, body, hasNewline := strings.Cut(rest, "\n")
			bodyStart := open + n + len(info) + 1
			if !hasNewline || strings.ContainsAny(info, "{[") {
				info, body, bodyStart = "", rest, open+n
			}
			lang := strings.ToLower(strings.TrimSpace(info))
			end := len(text)
			if j := strings.Index(body, marker); j >= 0 {
				body = body[:j]
				end = bodyStart + j + len(marker)
			}
			if lang == "json" || lang == "" {
				if !yield(fence{lang: lang, body: body, line: 1 + strings.Count(text[:open], "\n")}) {
					return
				}
			}
			if end <= open {
				end = open + n
			}
			pos = end
			if pos >= len(text) {
				return
			}
		}
	}
}

// firstBalancedJSON returns the first balanced value of text that opens
// with one of the brackets in opens ("{[" or "{") and is valid JSON, by
// start position. Brackets are matched string-aware from each candidate
// start; the matches found while scanning from one start are remembered
// for the starts nested in it, and the total work is bounded (exhausted
// reports that the bound was hit).
func firstBalancedJSON(text, opens string) (found string, exhausted bool) {
	// end[i] for an opening bracket at i: 0 not yet known, -1 unbalanced,
	// else the index just past its closing bracket.
	var end []int
	budget := 32*len(text) + 1<<20
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != opens[0] && (len(opens) == 1 || c != opens[1]) {
			continue
		}
		if end == nil {
			end = make([]int, len(text))
		}
		if budget < 0 {
			return "", true
		}
		if end[i] == 0 {
			budget -= matchBrackets(text, i, end)
		}
		if end[i] < 0 {
			continue
		}
		candidate := text[i:end[i]]
		budget -= len(candidate)
		if gjson.Valid(candidate) {
			return candidate, false
		}
	}
	return "", false
}

// matchBrackets scans text from the opening bracket at start until it is
// closed, recording in end the match of every bracket opened on the way
// (outside strings, scanning from start shows the same brackets as scanning
// from them). It returns how many bytes it scanned.
func matchBrackets(text string, start int, end []int) int {
	var stack []int
	inString, escaped := false, false
	for j := start; j < len(text); j++ {
		c := text[j]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, j)
		case '}', ']':
			top := stack[len(stack)-1]
			if (c == '}') != (text[top] == '{') {
				// Mismatched: no bracket still open here can balance.
				for _, k := range stack {
					end[k] = -1
				}
				return j - start + 1
			}
			stack = stack[:len(stack)-1]
			end[top] = j + 1
			if len(stack) == 0 {
				return j - start + 1
			}
		}
	}
	for _, k := range stack {
		end[k] = -1
	}
	return len(text) - start
}
