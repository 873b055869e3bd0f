package scripted

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
)

// This file reads a turn: which kind it is, and the usage and repeat that
// may go with it.

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
