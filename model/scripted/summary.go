package scripted

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
)

// summarize describes a request in one line for error messages: message
// count, system prompt, last user message, last message, tools, output.
func summarize(req *model.Request) string {
	if req == nil {
		return "nil request"
	}
	var parts []string
	if req.Model != "" {
		parts = append(parts, fmt.Sprintf("model %q", req.Model))
	}
	parts = append(parts, plural(len(req.Messages), "message"))
	if m, ok := firstOf(req, model.RoleSystem); ok {
		parts = append(parts, "system "+quote(m.Content, 60))
	}
	if m, ok := lastOf(req, model.RoleUser); ok {
		parts = append(parts, "last user "+quote(m.Content, 60))
	}
	if n := len(req.Messages); n > 0 {
		if last := req.Messages[n-1]; last.Role != model.RoleUser && last.Role != model.RoleSystem {
			parts = append(parts, "last "+describeMessage(req, last))
		}
	}
	if len(req.Tools) > 0 {
		names := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Name
		}
		parts = append(parts, "tools ["+strings.Join(names, " ")+"]")
	}
	if req.Output != nil {
		parts = append(parts, "output "+strconv.Quote(req.Output.Name))
	}
	return strings.Join(parts, "; ")
}

func describeMessage(req *model.Request, m model.Message) string {
	switch m.Role {
	case model.RoleTool:
		name := m.Name
		if name == "" {
			name = toolNameOf(req, m.ToolCallID)
		}
		return fmt.Sprintf("tool result of %q (%s) %s", name, m.ToolCallID, quote(m.Content, 60))
	case model.RoleAssistant:
		if len(m.ToolCalls) > 0 {
			names := make([]string, len(m.ToolCalls))
			for i, c := range m.ToolCalls {
				names[i] = c.Name
			}
			return "assistant calls [" + strings.Join(names, " ") + "]"
		}
		return "assistant " + quote(m.Content, 60)
	}
	return string(m.Role) + " " + quote(m.Content, 60)
}

func toolNameOf(req *model.Request, id string) string {
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return "?"
}

func firstOf(req *model.Request, role model.Role) (model.Message, bool) {
	for _, m := range req.Messages {
		if m.Role == role {
			return m, true
		}
	}
	return model.Message{}, false
}

// quote quotes s, cut to about n runes.
func quote(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return strconv.Quote(string(r[:n])) + "…"
	}
	return strconv.Quote(s)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
