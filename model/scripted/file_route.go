package scripted

import (
	"slices"
	"strings"
)

// This file reads a route: the conditions of "when" and the turns it
// answers with.

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
