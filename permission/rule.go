// Package permission decides whether a tool call may run, as Claude Code
// decides it: Policy asks the PreToolUse hooks, then the deny rules, the
// ask rules, the permission mode, the allow rules, and last a CanUseTool
// callback. Its rules are Claude Code's, read from the "permissions" of
// .claude/settings.json ({"allow": […], "deny": […], "ask": […],
// "defaultMode": …}): Bash(go test:*), Read(./secrets/**),
// WebFetch(domain:example.com), mcp__server__tool. It reads no files
// (project.LoadSettings does) and runs nothing but the hooks and the
// callback it is given.
package permission

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxRule bounds a rule's length, in bytes.
const maxRule = 4096

// Rule is one permission rule: a tool and, optionally, what of it —
// "Bash" (every command), "Bash(go test:*)" (commands that begin with
// go test), "Read(./secrets/**)" (files under secrets), "mcp__github"
// (every tool of that MCP server).
type Rule struct {
	// Tool is the tool's name as the rule writes it: Claude Code's
	// (Bash, Read, Edit, Write, Glob, Grep, WebFetch), an MCP tool's
	// (mcp__server__tool, mcp__server), or offshoot's own.
	Tool string
	// Specifier is what is between the parentheses, "" for none.
	Specifier string
}

// String returns the rule as Claude Code writes it.
func (r Rule) String() string {
	if r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Specifier + ")"
}

// ParseRule reads a rule as Claude Code writes it: TOOL or
// TOOL(SPECIFIER). An empty rule, one without a tool name, one with
// unbalanced parentheses or text after them, or one longer than 4 KiB is
// an error that says so.
func ParseRule(s string) (Rule, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return Rule{}, fmt.Errorf("an empty permission rule: write a tool's name, such as Read, or a tool and what of it, such as Bash(go test:*)")
	case len(t) > maxRule:
		return Rule{}, fmt.Errorf("a permission rule of %d bytes: keep it under %d", len(t), maxRule)
	case !utf8.ValidString(t):
		return Rule{}, fmt.Errorf("the permission rule %q is not valid UTF-8", t)
	}
	open := strings.IndexByte(t, '(')
	if open < 0 {
		if strings.ContainsAny(t, ") \t") {
			return Rule{}, fmt.Errorf("the permission rule %q is not a tool's name: write TOOL or TOOL(SPECIFIER), such as Bash(npm test:*)", clip(t))
		}
		return Rule{Tool: t}, nil
	}
	tool := strings.TrimSpace(t[:open])
	if tool == "" || strings.ContainsAny(tool, " \t)") {
		return Rule{}, fmt.Errorf("the permission rule %q has no tool's name before its parenthesis: write TOOL(SPECIFIER), such as Bash(npm test:*)", clip(t))
	}
	if !strings.HasSuffix(t, ")") {
		return Rule{}, fmt.Errorf("the permission rule %q does not end with the parenthesis it opens: write TOOL(SPECIFIER)", clip(t))
	}
	spec := strings.TrimSpace(t[open+1 : len(t)-1])
	if spec == "" || spec == "*" {
		return Rule{Tool: tool}, nil // Bash() and Bash(*) mean every call
	}
	return Rule{Tool: tool, Specifier: spec}, nil
}

// clip cuts s to 80 characters for a message.
func clip(s string) string {
	if utf8.RuneCountInString(s) > 80 {
		return string([]rune(s)[:80]) + "…"
	}
	return s
}
