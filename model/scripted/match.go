package scripted

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
)

// Matcher selects the requests a route (When) answers. String describes
// it for error messages. Matchers are called under the scripted model's
// lock: they must be quick and must not call the model.
type Matcher interface {
	Match(req *model.Request) bool
	String() string
}

type matchFunc struct {
	desc string
	fn   func(*model.Request) bool
}

// Match calls the function.
func (m matchFunc) Match(req *model.Request) bool { return m.fn(req) }

// String returns the description.
func (m matchFunc) String() string { return m.desc }

// MatchFunc returns a Matcher that calls fn, described by description.
func MatchFunc(description string, fn func(req *model.Request) bool) Matcher {
	return matchFunc{desc: description, fn: fn}
}

// SystemContains matches requests with a system message containing s.
func SystemContains(s string) Matcher {
	return MatchFunc(fmt.Sprintf("system prompt contains %q", s), func(req *model.Request) bool {
		for _, m := range req.Messages {
			if m.Role == model.RoleSystem && strings.Contains(m.Content, s) {
				return true
			}
		}
		return false
	})
}

// LastUserContains matches requests whose last user message contains s.
func LastUserContains(s string) Matcher {
	return MatchFunc(fmt.Sprintf("last user message contains %q", s), func(req *model.Request) bool {
		m, ok := lastOf(req, model.RoleUser)
		return ok && strings.Contains(m.Content, s)
	})
}

// HasToolResult matches requests holding a result of the tool name: a
// tool message named name, or answering a call to name.
func HasToolResult(name string) Matcher {
	return MatchFunc(fmt.Sprintf("has a result of tool %q", name), func(req *model.Request) bool {
		var ids map[string]bool
		for _, m := range req.Messages {
			switch m.Role {
			case model.RoleAssistant:
				for _, c := range m.ToolCalls {
					if c.Name == name {
						if ids == nil {
							ids = map[string]bool{}
						}
						ids[c.ID] = true
					}
				}
			case model.RoleTool:
				if m.Name == name || ids[m.ToolCallID] {
					return true
				}
			}
		}
		return false
	})
}

// All matches requests that every one of ms matches.
func All(ms ...Matcher) Matcher {
	descs := make([]string, len(ms))
	for i, m := range ms {
		descs[i] = m.String()
	}
	return MatchFunc(strings.Join(descs, " and "), func(req *model.Request) bool {
		for _, m := range ms {
			if !m.Match(req) {
				return false
			}
		}
		return true
	})
}

func lastOf(req *model.Request, role model.Role) (model.Message, bool) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == role {
			return req.Messages[i], true
		}
	}
	return model.Message{}, false
}
