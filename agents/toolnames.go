package agents

import (
	"path"
	"slices"
	"strings"
)

// planningTools are the tools of tools/planning, which stand for Claude
// Code's TodoWrite and TodoRead.
var planningTools = []string{
	"planning_setup_plan", "planning_add_step", "planning_update_step",
	"planning_mark_step", "planning_clear_plan", "planning_read_plan",
}

// delegationTools are the tools a child at the depth limit loses.
var delegationTools = []string{"Task", "TaskOutput", "TaskStop"}

// standardTools are the names of offshoot's own tools, which definitions
// are checked against when Options.ToolNames is nil.
var standardTools = slices.Sorted(slices.Values(append([]string{
	"ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm",
	"dispatch_subagent", "Task", "TaskOutput", "TaskStop",
}, planningTools...)))

// claudeTools maps Claude Code's tool names, spelled as Claude Code
// spells them, to offshoot's; the first name that lists a tool is the one
// it is given back under (ClaudeToolName). Only Claude Code's own names
// are here: a name merely like one (WriteFile) is unknown, warned about,
// and grants nothing.
var claudeTools = []struct {
	name  string
	tools []string
}{
	{"Read", []string{"read_file"}},
	{"Write", []string{"write_file"}},
	{"Edit", []string{"edit_file"}},
	{"MultiEdit", []string{"edit_file"}},
	{"Glob", []string{"glob"}},
	{"Grep", []string{"grep"}},
	{"LS", []string{"ls"}},
	{"TodoWrite", planningTools},
	{"TodoRead", planningTools},
	{"Task", []string{"Task"}},
	{"Agent", []string{"Task"}},
	{"TaskOutput", []string{"TaskOutput"}},
	{"TaskStop", []string{"TaskStop"}},
	{"Bash", []string{"bash"}},
	{"WebFetch", []string{"web_fetch"}},
	// AskUserQuestion keeps its name: it is the root package's, offered
	// with Options.AskUser.
	{"AskUserQuestion", []string{"AskUserQuestion"}},
}

// claudeIndex is claudeTools by lower-cased name.
var claudeIndex = func() map[string][]string {
	m := make(map[string][]string, len(claudeTools))
	for _, t := range claudeTools {
		m[strings.ToLower(t.name)] = t.tools
	}
	return m
}()

// optIn are the tools a program offers only when its user allows them
// (the bash tool of package tools/shell, web_fetch of tools/webfetch), or
// when someone can answer them (AskUserQuestion, with Options.AskUser): a
// Claude Code name for one that is not offered is dropped with a warning
// that says what the tool does and how run and chat offer it.
var optIn = map[string]struct{ does, allow string }{
	"bash":            {does: "runs commands with", allow: "bash"},
	"web_fetch":       {does: "fetches pages with", allow: "webfetch"},
	"AskUserQuestion": {},
}

// claudeOnly are Claude Code tools, lower-cased, that have no equivalent
// in offshoot.
var claudeOnly = map[string]bool{
	"bashoutput": true, "killshell": true, "killbash": true,
	"websearch": true, "notebookedit": true, "notebookread": true,
	"sendmessage": true, "taskcreate": true, "taskget": true, "tasklist": true, "taskupdate": true,
	"teamcreate": true, "teamdelete": true, "exitplanmode": true, "enterplanmode": true,
	"skill": true, "slashcommand": true, "lsp": true,
	"listmcpresourcestool": true, "readmcpresourcetool": true,
}

// toolRef is one tools entry read against the tools that exist.
type toolRef struct {
	// names are the offshoot names or patterns the entry stands for; empty
	// when it stands for nothing usable (a malformed pattern).
	names []string
	// known is false when no tool of that name exists.
	known bool
	// rule is set for an entry with an argument rule such as "Bash(git:*)";
	// base is its tool name.
	rule bool
	base string
	// claudeOnly is set for a Claude Code tool with no equivalent here.
	claudeOnly bool
	// notOffered names the opt-in tool a Claude Code entry stands for
	// when the program does not offer it.
	notOffered string
	// mcpServer is the server of an mcp__server[__tool] entry.
	mcpServer string
	// malformed is set for a pattern path.Match rejects.
	malformed bool
}

// resolveTool reads one tools entry. has reports whether a tool of a name
// exists, match whether a pattern matches one; an exact name wins over the
// Claude Code mapping, so a program's own tool called "read" stays itself.
func resolveTool(entry string, has func(string) bool, match func(string) bool) toolRef {
	if has(entry) {
		return toolRef{names: []string{entry}, known: true}
	}
	if i := strings.IndexByte(entry, '('); i > 0 && strings.HasSuffix(entry, ")") {
		base := resolveTool(strings.TrimSpace(entry[:i]), has, match)
		base.rule, base.base = true, strings.TrimSpace(entry[:i])
		return base
	}
	if targets, ok := claudeIndex[strings.ToLower(entry)]; ok {
		known := true
		for _, t := range targets {
			known = known && has(t)
		}
		if _, opt := optIn[targets[0]]; !known && len(targets) == 1 && opt {
			return toolRef{notOffered: targets[0]}
		}
		return toolRef{names: targets, known: known}
	}
	ref := toolRef{names: []string{entry}}
	if rest, ok := strings.CutPrefix(entry, "mcp__"); ok {
		ref.mcpServer, _, _ = strings.Cut(rest, "__")
	}
	if strings.ContainsAny(entry, `*?[\`) {
		if _, err := path.Match(entry, ""); err != nil {
			return toolRef{malformed: true}
		}
		ref.known = match(entry)
		return ref
	}
	ref.claudeOnly = claudeOnly[strings.ToLower(entry)]
	return ref
}

// canonicalTools maps entries to the names a Filter matches, against the
// tools that exist (has, match): Claude Code names become offshoot's,
// duplicates and malformed patterns go. An entry with an argument rule
// stands for its whole tool when ruled is true (a deny list: refusing more
// is safe) and for nothing otherwise (an allow list: granting more is not).
func canonicalTools(entries []string, ruled bool, has func(string) bool, match func(string) bool) []string {
	out := make([]string, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		ref := resolveTool(e, has, match)
		if ref.rule && !ruled {
			continue
		}
		for _, n := range ref.names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// ClaudeToolNames returns the names of offshoot's tools a Claude Code
// tool name stands for, whatever its case ("Read": read_file; "TodoWrite":
// the planning tools), and false for a name that is not one of Claude
// Code's or has no equivalent here. Permission rules and agent files map
// names by this one table.
func ClaudeToolNames(name string) ([]string, bool) {
	names, ok := claudeIndex[strings.ToLower(name)]
	return slices.Clone(names), ok
}

// ClaudeToolName returns the Claude Code name of one of offshoot's tools
// ("read_file": Read; "bash": Bash; a planning tool: TodoWrite), by the
// table ClaudeToolNames reads, and the name as it is when Claude Code has
// no tool for it. Hooks are given tools under these names, so that
// matchers written for Claude Code select the same calls.
func ClaudeToolName(tool string) string {
	for _, t := range claudeTools {
		if slices.Contains(t.tools, tool) {
			return t.name
		}
	}
	return tool
}
