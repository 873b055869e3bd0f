package scripted

import (
	"slices"
	"strings"
	"time"
)

// This file reads an error turn: a provider's failure, played back as a
// recordedError.

// scriptErrorKinds are the kinds an error turn may name.
var scriptErrorKinds = []string{"rate_limited", "context_length", "auth"}

func (p *scriptParser) errorTurn(v scriptSpan, field string) (Turn, error) {
	ms, err := p.object(v, field, `must be an object such as {"message": "the server is down"}`)
	if err != nil {
		return Turn{}, err
	}
	e := &recordedError{}
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
