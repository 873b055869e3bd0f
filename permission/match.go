package permission

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
)

// Call is a tool call as the rules see it.
type Call struct {
	// Tool is the tool's name as offshoot calls it: read_file, bash,
	// mcp__github__create_issue.
	Tool string
	// Command is the bash tool's command.
	Command string
	// Path is the file a file tool reads or changes, relative to the
	// project and slash-separated ("src/main.go").
	Path string
	// URL is the address a fetch tool fetches.
	URL string
}

// Rules are a list of rules: a settings file's allow, deny or ask.
type Rules []Rule

// Covers reports whether the rules allow the whole call: for a bash
// command, every part of it (split on &&, ||, ;, |, & and new lines,
// outside quotes) must be matched by some rule, so that "go test ./... &&
// rm -rf /" is not covered by Bash(go test:*); a part that substitutes a
// command ($(…), `…`, <(…)) is never covered. For other tools, one rule
// matching is enough.
func (rs Rules) Covers(c Call) bool {
	if !isBash(c.Tool) || c.Command == "" {
		_, ok := rs.first(c, c.Command)
		return ok
	}
	parts := splitCommand(c.Command)
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if substitutes(p) {
			return false
		}
		if _, ok := rs.first(c, p); !ok {
			return false
		}
	}
	return true
}

// Touches returns the first rule that matches the call or, for a bash
// command, any part of it: what a deny or ask list needs, where one part
// denied denies the whole.
func (rs Rules) Touches(c Call) (Rule, bool) {
	if !isBash(c.Tool) || c.Command == "" {
		return rs.first(c, c.Command)
	}
	if r, ok := rs.first(c, strings.TrimSpace(c.Command)); ok {
		return r, true
	}
	for _, p := range splitCommand(c.Command) {
		if r, ok := rs.first(c, p); ok {
			return r, true
		}
	}
	return Rule{}, false
}

// first returns the first rule matching c with command as its command.
func (rs Rules) first(c Call, command string) (Rule, bool) {
	for _, r := range rs {
		if r.matches(c, command) {
			return r, true
		}
	}
	return Rule{}, false
}

// isBash reports whether name is the bash tool.
func isBash(name string) bool { return strings.EqualFold(name, "bash") }

// matches reports whether r matches the call c, command being the part
// of a bash command looked at.
func (r Rule) matches(c Call, command string) bool {
	if !r.names(c.Tool) {
		return false
	}
	if r.Specifier == "" {
		return true
	}
	switch kind := toolKind(c.Tool); kind {
	case "bash":
		return commandMatches(r.Specifier, command)
	case "read", "edit":
		return pathMatches(r.Specifier, c.Path)
	case "fetch":
		return fetchMatches(r.Specifier, c.URL)
	}
	return false // a specifier this tool has no notion of grants nothing
}

// readTools and editTools are the tools Claude Code's Read and Edit
// rules cover: every tool that reads files, every tool that changes them.
var (
	readTools = []string{"read_file", "ls", "glob", "grep"}
	editTools = []string{"write_file", "edit_file", "rm"}
)

// toolKind says what a call's specifier is about.
func toolKind(tool string) string {
	switch {
	case isBash(tool):
		return "bash"
	case slices.Contains(readTools, tool):
		return "read"
	case slices.Contains(editTools, tool):
		return "edit"
	case strings.EqualFold(tool, "webfetch") || tool == "web_fetch":
		return "fetch"
	}
	return ""
}

// names reports whether the rule's tool names the call's tool: the same
// name; Claude Code's name for it (by agents' table; Read covering every
// reading tool and Edit every changing one); an MCP server's name for
// each of its tools; or a pattern (mcp__github__*).
func (r Rule) names(tool string) bool {
	if r.Tool == tool {
		return true
	}
	switch strings.ToLower(r.Tool) {
	case "read":
		return slices.Contains(readTools, tool)
	case "edit":
		return slices.Contains(editTools, tool)
	case "webfetch":
		return toolKind(tool) == "fetch"
	}
	if names, ok := agents.ClaudeToolNames(r.Tool); ok && slices.Contains(names, tool) {
		return true
	}
	if server, ok := strings.CutPrefix(r.Tool, "mcp__"); ok && !strings.Contains(server, "__") && server != "" {
		return strings.HasPrefix(tool, r.Tool+"__")
	}
	if strings.ContainsAny(r.Tool, "*?[") {
		ok, _ := path.Match(r.Tool, tool)
		return ok
	}
	return false
}

// commandMatches matches a bash rule's specifier against one command:
// "go test:*" (or "go test *") matches go test and go test followed by
// anything after a space; a specifier with other * matches any text in
// their place; any other is the exact command.
func commandMatches(spec, command string) bool {
	command = strings.Join(strings.Fields(command), " ")
	for _, suffix := range []string{":*", " *"} {
		if prefix, ok := strings.CutSuffix(spec, suffix); ok && !strings.Contains(prefix, "*") {
			prefix = strings.Join(strings.Fields(prefix), " ")
			return command == prefix || strings.HasPrefix(command, prefix+" ")
		}
	}
	if strings.Contains(spec, "*") {
		return wildcard(strings.Join(strings.Fields(spec), " "), command)
	}
	return command == strings.Join(strings.Fields(spec), " ")
}

// wildcard reports whether s matches pattern, where * stands for any
// text; it runs in O(len(pattern)·len(s)) at worst.
func wildcard(pattern, s string) bool {
	px, sx := 0, 0
	star, mark := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && pattern[px] == '*':
			star, mark = px, sx
			px++
		case px < len(pattern) && pattern[px] == s[sx]:
			px++
			sx++
		case star >= 0:
			px, mark = star+1, mark+1
			sx = mark
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// fetchMatches matches a fetch rule ("domain:example.com",
// "domain:*.example.com") against a URL's host.
func fetchMatches(spec, raw string) bool {
	domain, ok := strings.CutPrefix(spec, "domain:")
	if !ok || raw == "" {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	domain = strings.ToLower(strings.TrimSpace(domain))
	if sub, ok := strings.CutPrefix(domain, "*."); ok {
		return strings.HasSuffix(host, "."+sub)
	}
	return host == domain
}
