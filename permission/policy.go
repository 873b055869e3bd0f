package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/hooks"
)

// Policy decides whether a tool call may run, in the order the Claude
// Agent SDK documents: the PreToolUse hooks, the deny rules, the ask
// rules, the permission mode, the allow rules, and last the CanUseTool
// callback for a call none of them decided. The zero Policy lets every
// call run that offshoot's tools run unasked (reading and changing the
// agents' files, planning, delegating, a program's own tools) and denies
// those that are asked about (bash, MCP tools, web fetches), no one being
// there to ask. A Policy is safe for concurrent use if its hooks and
// callback are.
type Policy struct {
	// Settings are the rules (Allow, Deny, Ask) and the mode the
	// settings files give (project.LoadSettings reads and merges them).
	Settings Settings
	// Mode, when set, wins over Settings.DefaultMode (a command line's
	// --permission-mode, the SDK's permissionMode).
	Mode Mode
	// Hooks are asked first, at PreToolUse: a hook's deny denies the
	// call; its ask sends the call to CanUseTool; its allow lets it run
	// without asking, though deny and ask rules still hold; its updated
	// input replaces the call's.
	Hooks *hooks.Hooks
	// CanUseTool is asked about a call nothing else decided, or that an
	// ask rule or a hook sends to it: the user's answer. A nil
	// CanUseTool denies such a call, and the reason says which rule
	// would allow it. An error denies the call with its text.
	CanUseTool func(ctx context.Context, r Request) (Decision, error)
}

// Request is a tool call put to the policy.
type Request struct {
	// Tool is the tool's name as offshoot calls it (read_file, bash,
	// mcp__github__create_issue); Input its arguments, a JSON object.
	Tool  string
	Input json.RawMessage
	// CallID is the call's id, SessionID the main session's id.
	CallID, SessionID string
	// AgentType names the agent making the call ("" for the main
	// agent), AgentID that agent's own id (its session's).
	AgentType, AgentID string
	// Files, when set, are the agents' files as the call sees them: a
	// search (grep) of a folder above what a Read deny rule names is
	// refused only when such files are there to be read.
	Files fs.FS
	// AskedBy, for CanUseTool, names what sent the call to it: "the ask
	// rule Bash(git push:*)", "a PreToolUse hook", or "" when nothing
	// decided it.
	AskedBy string
	// Suggestions, for CanUseTool, are the allow rules that would let
	// this call, and calls like it, run unasked — what Claude Code offers
	// as "don't ask again": Bash(go test:*) for "go test ./...", one rule
	// for each part of a chained command, WebFetch(domain:go.dev), Write.
	// They cover the call (Suggestions.Covers(r.Call())); nil when no rule
	// would, as for a command that runs another's output ($(…)) or whose
	// name holds a * (which a rule reads as any text).
	Suggestions Rules
}

// Call returns the call as the rules see it: the tool and, from its
// input, the command, file or address.
func (r Request) Call() Call { return callOf(r.Tool, r.Input) }

// Decision is the policy's answer for one call.
type Decision struct {
	// Allow lets the call run.
	Allow bool
	// Reason says, in plain words, who decided and why: "the deny rule
	// Bash(rm:*)", "plan mode runs no tool that changes something",
	// "the user". The model reads it after "Permission to use … was
	// denied: ".
	Reason string
	// UpdatedInput, when set, replaces the call's arguments (a hook's
	// or CanUseTool's change).
	UpdatedInput json.RawMessage
}

// EffectiveMode returns the mode the policy decides in, as hooks are
// told it (permission_mode): Mode, else Settings.DefaultMode, else
// Default, which is also a nil policy's.
func (p *Policy) EffectiveMode() Mode {
	switch {
	case p == nil:
		return Default
	case p.Mode != "":
		return p.Mode
	case p.Settings.DefaultMode != "":
		return p.Settings.DefaultMode
	}
	return Default
}

// Decide decides whether the call r may run. A hook's panic is that
// hook's failure (hooks.Run goes on without it); a panic in CanUseTool is
// the caller's to recover (the runner does). A context that ends while
// the hooks run denies the call.
func (p *Policy) Decide(ctx context.Context, r Request) Decision {
	mode := p.EffectiveMode()
	var updated json.RawMessage
	hook := ""
	if p.Hooks.Has(hooks.PreToolUse) {
		out, err := p.Hooks.Run(ctx, hooks.Input{
			Event: hooks.PreToolUse, SessionID: r.SessionID, Cwd: p.Hooks.Dir, PermissionMode: string(mode),
			ToolName: claudeName(r.Tool), ToolInput: r.Input, ToolUseID: r.CallID,
			AgentID: r.AgentID, AgentType: r.AgentType,
		})
		if err != nil {
			return Decision{Reason: "the PreToolUse hooks did not finish: " + err.Error()}
		}
		if out.PermissionDecision == hooks.Deny {
			return Decision{Reason: because("a PreToolUse hook denied it", out.PermissionDecisionReason)}
		}
		if out.UpdatedInput != nil {
			if !json.Valid(out.UpdatedInput) || !strings.HasPrefix(strings.TrimSpace(string(out.UpdatedInput)), "{") {
				return Decision{Reason: "a PreToolUse hook changed its input into something that is not a JSON object"}
			}
			updated, r.Input = out.UpdatedInput, out.UpdatedInput
		}
		hook = out.PermissionDecision
	}
	d := p.decide(ctx, r, mode, hook)
	if d.Allow && d.UpdatedInput == nil {
		d.UpdatedInput = updated
	}
	return d
}

// decide is Decide after the hooks, hook being their decision.
func (p *Policy) decide(ctx context.Context, r Request, mode Mode, hook string) Decision {
	call := callOf(r.Tool, r.Input)
	if rule, ok := p.Settings.Deny.Touches(call); ok {
		return Decision{Reason: fmt.Sprintf("the deny rule %s of the settings", rule)}
	}
	if call.Tool == "grep" {
		for _, rule := range p.Settings.Deny {
			if rule.names(call.Tool) && rule.Specifier != "" && searchReaches(rule.Specifier, call.Path, r.Files) {
				return Decision{Reason: fmt.Sprintf("the deny rule %s of the settings names files this search would read; search a folder outside them", rule)}
			}
		}
	}
	if rule, ok := p.Settings.Ask.Touches(call); ok {
		return p.ask(ctx, r, call, mode, fmt.Sprintf("the ask rule %s", rule))
	}
	if hook == hooks.Ask {
		return p.ask(ctx, r, call, mode, "a PreToolUse hook")
	}
	eff := effectOf(r.Tool)
	if mode == Plan && eff.changes() {
		return Decision{Reason: "plan mode runs no tool that changes something; present the plan instead"}
	}
	if hook == hooks.Allow {
		return Decision{Allow: true, Reason: "a PreToolUse hook"}
	}
	switch mode {
	case BypassPermissions:
		return Decision{Allow: true, Reason: "bypassPermissions mode"}
	case AcceptEdits:
		if eff == edits || eff == runs && onlyFileCommands(call.Command) {
			return Decision{Allow: true, Reason: "acceptEdits mode"}
		}
	}
	if p.Settings.Allow.Covers(call) {
		return Decision{Allow: true, Reason: "an allow rule"}
	}
	if !eff.asks() {
		return Decision{Allow: true, Reason: string(mode) + " mode"}
	}
	return p.ask(ctx, r, call, mode, "")
}

// ask puts the call to CanUseTool; why names what sent it there ("" for
// no rule deciding it).
func (p *Policy) ask(ctx context.Context, r Request, call Call, mode Mode, why string) Decision {
	suggested := suggest(call)
	hint := "no allow rule can name such a command (one that runs another's output, or whose name holds a *)"
	if len(suggested) > 0 {
		var quoted []string
		for _, s := range suggested {
			quoted = append(quoted, strconv.Quote(s.String()))
		}
		hint = fmt.Sprintf("to allow it, add %s to permissions.allow in .claude/settings.json", strings.Join(quoted, " and "))
	}
	if mode == DontAsk {
		if why != "" {
			return Decision{Reason: fmt.Sprintf("%s asks about it, and dontAsk mode asks no one", why)}
		}
		return Decision{Reason: "dontAsk mode denies what no allow rule allows; " + hint}
	}
	if p.CanUseTool == nil {
		if why != "" {
			return Decision{Reason: fmt.Sprintf("%s asks about it, and there is no one to ask", why)}
		}
		return Decision{Reason: "no rule allows it, and there is no one to ask; " + hint}
	}
	r.AskedBy, r.Suggestions = why, suggested
	p.notify(ctx, r, call)
	d, err := p.CanUseTool(ctx, r)
	if err != nil {
		return Decision{Reason: err.Error()}
	}
	if !d.Allow && d.Reason == "" {
		d.Reason = "the user said no"
	}
	return d
}

// because joins what decided with the reason it gave, if any.
func because(who, reason string) string {
	if reason = strings.TrimSpace(reason); reason != "" {
		return who + ": " + reason
	}
	return who
}

// callOf reads what the rules look at from a call's arguments: the
// command of bash, the file of a file tool, the address of a fetch.
func callOf(tool string, input json.RawMessage) Call {
	var args struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		URL      string `json:"url"`
	}
	_ = json.Unmarshal(input, &args) // a field of another type is left empty
	c := Call{Tool: tool, Command: args.Command, Path: args.FilePath, URL: args.URL}
	if c.Path == "" {
		c.Path = args.Path
	}
	return c
}

// suggest returns the allow rules that would let the call c, and calls
// like it, run unasked (see Request.Suggestions).
func suggest(c Call) Rules {
	name := claudeName(c.Tool)
	switch effectOf(c.Tool) {
	case runs:
		var rules Rules
		for _, p := range splitCommand(c.Command) {
			prefix := commandPrefix(p)
			if substitutes(p) || strings.Contains(prefix, "*") {
				return nil // no prefix rule covers it: a * in a rule stands for any text
			}
			r := Rule{Tool: name, Specifier: prefix + ":*"}
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
		return rules // nil for no command: never the whole tool
	case fetches:
		if u, err := url.Parse(c.URL); err == nil && u.Hostname() != "" {
			return Rules{{Tool: "WebFetch", Specifier: "domain:" + u.Hostname()}}
		}
	}
	return Rules{{Tool: name}}
}

// subcommand is a word that names what a command does rather than what it
// does it to: "test" in "go test", "status" in "git status".
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// commandPrefix is the prefix of the command part a suggested rule
// allows: its first word, and the second when it is a subcommand.
func commandPrefix(part string) string {
	f := strings.Fields(part)
	if len(f) > 1 && subcommand.MatchString(f[1]) {
		return f[0] + " " + f[1]
	}
	return f[0]
}

// claudeNames are Claude Code's names of tools offshoot has, in the
// order claudeName prefers them.
var claudeNames = []string{"Read", "Write", "Edit", "Glob", "Grep", "LS", "Bash", "TodoWrite", "Task", "TaskOutput", "TaskStop"}

// claudeName returns the name Claude Code gives the tool offshoot calls
// tool (read_file: Read, bash: Bash, web_fetch: WebFetch), by the agent
// loader's table, or tool itself when Claude Code has none: what hooks'
// matchers and a settings file's rules see.
func claudeName(tool string) string {
	if toolKind(tool) == "fetch" {
		return "WebFetch"
	}
	for _, n := range claudeNames {
		if names, ok := agents.ClaudeToolNames(n); ok {
			for _, t := range names {
				if t == tool {
					return n
				}
			}
		}
	}
	return tool
}

// AfterTool runs the PostToolUse hooks for the call r, which ran and
// returned result, and returns what they give the model to read: a
// blocking hook's reason and their additional context, "" for nothing.
// A context that ends while they run gives nothing.
func (p *Policy) AfterTool(ctx context.Context, r Request, result string) string {
	if !p.Hooks.Has(hooks.PostToolUse) {
		return ""
	}
	response, _ := json.Marshal(result)
	out, err := p.Hooks.Run(ctx, hooks.Input{
		Event: hooks.PostToolUse, SessionID: r.SessionID, Cwd: p.Hooks.Dir, PermissionMode: string(p.EffectiveMode()),
		ToolName: claudeName(r.Tool), ToolInput: r.Input, ToolUseID: r.CallID, ToolResponse: response,
		AgentID: r.AgentID, AgentType: r.AgentType,
	})
	if err != nil {
		return ""
	}
	var parts []string
	if out.Block {
		parts = append(parts, because("A PostToolUse hook objects", out.Reason))
	}
	if c := strings.TrimSpace(out.AdditionalContext); c != "" {
		parts = append(parts, c)
	}
	return strings.Join(parts, "\n\n")
}

// notify runs the Notification hooks before the call is put to
// CanUseTool, as Claude Code's before its permission prompt; they decide
// nothing.
func (p *Policy) notify(ctx context.Context, r Request, call Call) {
	if !p.Hooks.Has(hooks.Notification) {
		return
	}
	_, _ = p.Hooks.Run(ctx, hooks.Input{Event: hooks.Notification, SessionID: r.SessionID, PermissionMode: string(p.EffectiveMode()),
		AgentID: r.AgentID, AgentType: r.AgentType, NotificationType: "permission_prompt",
		Message: "offshoot needs your permission to use " + agents.ClaudeToolName(call.Tool)})
}
