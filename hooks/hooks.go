// Package hooks runs a program's hooks at the points of an agent's life
// Claude Code names — PreToolUse, PostToolUse, UserPromptSubmit, Stop,
// SubagentStart, SubagentStop, PreCompact, SessionStart, SessionEnd,
// Notification — with
// Claude Code's contract: a hook is given an Input (the JSON a command
// hook reads on stdin) and answers with an Output (the JSON it may print
// on stdout). A hook is a Go function or, from a settings file, a command.
//
// The package decides nothing about tools itself: the permission path
// asks the PreToolUse hooks first and reads their answer; the client runs
// the others where their event happens.
package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/agents"
)

// Event is the point of an agent's life a hook runs at, named as Claude
// Code names it.
type Event string

// The events hooks run at.
const (
	// PreToolUse runs before a tool call, after the model asked for it;
	// it may allow, deny or ask about the call, or change its input.
	PreToolUse Event = "PreToolUse"
	// PostToolUse runs after a tool call returned; it may block (the
	// model reads the reason) or add context.
	PostToolUse Event = "PostToolUse"
	// UserPromptSubmit runs before a user's message is sent; it may
	// block it or add context.
	UserPromptSubmit Event = "UserPromptSubmit"
	// Stop runs when the main agent would finish; blocking keeps it
	// working, with the reason as its next message.
	Stop Event = "Stop"
	// SubagentStart runs before a subagent's first turn; it may add
	// context.
	SubagentStart Event = "SubagentStart"
	// SubagentStop runs when a subagent would finish; blocking keeps it
	// working.
	SubagentStop Event = "SubagentStop"
	// PreCompact runs before the conversation is compacted.
	PreCompact Event = "PreCompact"
	// SessionStart runs when a session starts or resumes; it may add
	// context.
	SessionStart Event = "SessionStart"
	// SessionEnd runs when a session ends.
	SessionEnd Event = "SessionEnd"
	// Notification runs when the run needs a person: its
	// NotificationType is "permission_prompt" before a tool call is put
	// to the person (or program) who decides it, "idle_prompt" before
	// the model's question is put to the user; Message says what for. It
	// decides nothing: its answer is ignored.
	Notification Event = "Notification"
)

// DefaultTimeout is how long a hook may run when its Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Input is what a hook is given: the JSON a command hook reads on its
// standard input, field for field as Claude Code writes it. Fields that do
// not belong to the event are left empty.
type Input struct {
	SessionID string `json:"session_id"`
	// TranscriptPath is the agent's transcript file: a subagent's under
	// the client's Transcripts (SubagentStop), "" for the main agent,
	// which keeps none (its conversation is in its session).
	TranscriptPath string `json:"transcript_path,omitempty"`
	// Cwd is the project's directory.
	Cwd string `json:"cwd,omitempty"`
	// PermissionMode is the mode tool calls are decided in (default,
	// acceptEdits, plan, bypassPermissions, dontAsk): the policy's
	// (offshoot.Options.Permissions), bypassPermissions when there is
	// none, as a client without one lets every call run.
	PermissionMode string `json:"permission_mode,omitempty"`
	Event          Event  `json:"hook_event_name"`
	// ToolName is the tool's name as Claude Code calls it where it has
	// one (Bash, Write, Read, …), offshoot's own otherwise; ToolInput its
	// arguments, ToolUseID the call's id, ToolResponse (PostToolUse) the
	// result.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	// Prompt is the user's message (UserPromptSubmit).
	Prompt string `json:"prompt,omitempty"`
	// StopHookActive is true when the agent is already going on because a
	// stop hook blocked (Stop, SubagentStop).
	StopHookActive bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is the agent's final text so far (Stop,
	// SubagentStop).
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// AgentID and AgentType name the subagent (SubagentStart,
	// SubagentStop) or the agent making a tool call, "" for the main one.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
	// Trigger is "manual" or "auto" and CustomInstructions what the user
	// asked the summary to keep (PreCompact).
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	// Source is "startup", "resume", "clear" or "compact" (SessionStart);
	// Reason why the session ended (SessionEnd).
	Source string `json:"source,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Message is what the run needs a person for, and NotificationType
	// which kind of need it is, "permission_prompt" or "idle_prompt"
	// (Notification).
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
}

// The permission decisions a PreToolUse hook may answer.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// Output is a hook's answer, flat: a command hook's JSON, whose
// event-specific fields Claude Code nests under "hookSpecificOutput", is
// read into the same fields. The zero Output lets everything go on.
type Output struct {
	// Stop, when true, ends the agent's work after this hook ("continue":
	// false), with StopReason shown to the user.
	Stop       bool
	StopReason string
	// SystemMessage is a warning shown to the user.
	SystemMessage string
	// Block blocks what the event is about (a tool's result, a prompt, a
	// stop: "decision": "block"), with Reason given to the model.
	Block  bool
	Reason string
	// PermissionDecision (PreToolUse) is Allow, Deny, Ask or "" for no
	// opinion; PermissionDecisionReason says why.
	PermissionDecision       string
	PermissionDecisionReason string
	// UpdatedInput (PreToolUse), when set, replaces the tool's input.
	UpdatedInput json.RawMessage
	// AdditionalContext is text added for the model (UserPromptSubmit,
	// SessionStart, PostToolUse, SubagentStart).
	AdditionalContext string
}

// Func is a hook written in Go. An error is reported and the agent goes
// on, as a command hook's failure other than exit 2 is; to block, answer
// with Block or PermissionDecision Deny. The hooks of one event run at
// the same time: a Func shared between them must be safe for concurrent
// use.
type Func func(ctx context.Context, in Input) (Output, error)

// Hook is one hook: what it runs at, which calls it applies to, and what
// it runs.
type Hook struct {
	Event Event
	// Matcher selects by tool name (PreToolUse, PostToolUse: Claude
	// Code's names such as Bash or Write|Edit, each matched exactly, or a
	// regular expression found anywhere in the name, such as
	// mcp__github__.*), by trigger (PreCompact) or by source
	// (SessionStart), as Claude Code reads it. "" or "*" matches
	// everything.
	Matcher string
	// Func is a Go hook; Command a command hook, run with sh -c as
	// Claude Code runs one: Input as JSON on its stdin; exit status 0 goes
	// on, its stdout read as a JSON answer (for UserPromptSubmit and
	// SessionStart, plain text is context for the model); 2 blocks, its
	// stderr the reason the model reads (for PreToolUse, a deny); any
	// other is a failure that is logged, and the agent goes on. Its
	// stdout and stderr are kept up to 1 MiB each, and the text the model
	// reads of them up to 10,000 bytes. Exactly one of Func and Command
	// is set.
	Func    Func
	Command string
	// Timeout bounds the hook; DefaultTimeout when zero. A command hook
	// whose time is up is killed with every process it started (its
	// process group), and counts as failed.
	Timeout time.Duration
}

// Hooks are a program's hooks: those of one event run together (at most
// four at a time, as Claude Code runs them in parallel), and their answers
// are merged in the order of List.
type Hooks struct {
	List []Hook
	// Dir is the directory command hooks run in (the project's), given
	// to them as CLAUDE_PROJECT_DIR and OFFSHOOT_PROJECT_DIR and as the
	// Input's Cwd when it has none.
	Dir string
	// Env are variables command hooks get (a settings file's "env"),
	// besides PATH, HOME, USER, LANG, TERM, TMPDIR and SHELL of this
	// process's; no other variable of this process reaches them, and no
	// model key (…_API_KEY, OPENAI_…, ANTHROPIC_…, LLM_…) of Env either.
	Env map[string]string
	// Logger reports hooks that failed without blocking.
	Logger *slog.Logger
}

// maxParallel is how many hooks of one event run at a time.
const maxParallel = 4

// Has reports whether any hook runs at event ev.
func (h *Hooks) Has(ev Event) bool {
	if h == nil {
		return false
	}
	for _, k := range h.List {
		if k.Event == ev {
			return true
		}
	}
	return false
}

// Run runs every hook for in.Event whose matcher selects in — a command
// listed twice runs once — and merges their answers in the order of
// List: any Deny wins over Ask, and Ask over Allow; any Block or Stop
// holds, with the reasons joined; additional context is joined; the last
// UpdatedInput wins. A tool's name (in.ToolName) is given to the hooks as
// Claude Code's where it has one (agents.ClaudeToolName), so that a
// matcher such as Bash or Write|Edit selects offshoot's bash and
// write_file. A hook that fails without blocking (an error, a panic, a
// command's exit status other than 0 and 2, its timeout) is logged and
// skipped. Run returns an error only when ctx ends.
func (h *Hooks) Run(ctx context.Context, in Input) (Output, error) {
	var out Output
	if h == nil {
		return out, nil
	}
	if in.ToolName != "" {
		in.ToolName = agents.ClaudeToolName(in.ToolName)
	}
	if in.Cwd == "" {
		in.Cwd = h.Dir
	}
	var run []Hook
	seen := map[string]bool{}
	for _, k := range h.List {
		if k.Event != in.Event || !k.matches(in) {
			continue
		}
		if k.Func == nil && k.Command != "" {
			if seen[k.Command] {
				continue
			}
			seen[k.Command] = true
		}
		run = append(run, k)
	}
	if len(run) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	outs := make([]Output, len(run))
	errs := make([]error, len(run))
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxParallel)
	for i, k := range run {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			outs[i], errs[i] = h.run(ctx, k, in)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	for i, k := range run {
		if errs[i] != nil {
			h.logger().Warn("a hook failed; going on", "event", string(in.Event), "hook", k.name(), "err", errs[i])
			continue
		}
		out = merge(out, outs[i])
	}
	return out, nil
}

// run runs one hook within its timeout, a panic in a Go hook being its
// error.
func (h *Hooks) run(ctx context.Context, k Hook, in Input) (out Output, err error) {
	timeout := k.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case k.Func != nil:
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("panic: %v", v)
			}
		}()
		return k.Func(ctx, in)
	case k.Command != "":
		return h.command(ctx, k, in)
	}
	return out, errors.New("the hook has neither a function nor a command")
}

// matches reports whether k's matcher selects in.
func (k Hook) matches(in Input) bool {
	if k.Matcher == "" || k.Matcher == "*" {
		return true
	}
	var subject string
	switch in.Event {
	case PreToolUse, PostToolUse:
		subject = in.ToolName
	case PreCompact:
		subject = in.Trigger
	case SessionStart:
		subject = in.Source
	case Notification:
		subject = in.NotificationType
	default:
		return true
	}
	return matcherSelects(k.Matcher, subject)
}

// simpleMatcher is a matcher Claude Code reads as names, not as a regular
// expression: letters, digits, _, -, spaces, and | or , between names.
var simpleMatcher = regexp.MustCompile(`^[A-Za-z0-9_ ,|-]+$`)

// matcherSelects reports whether matcher selects subject as Claude Code
// reads it: a simple matcher ("Bash", "Write|Edit") names exactly the
// subjects it lists; any other is a regular expression found anywhere in
// the subject ("^Notebook", "mcp__memory__.*"); one that does not compile
// selects only itself.
func matcherSelects(matcher, subject string) bool {
	if simpleMatcher.MatchString(matcher) {
		for _, name := range strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			if strings.TrimSpace(name) == subject {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return matcher == subject
	}
	return re.MatchString(subject)
}

// name names k in a log line.
func (k Hook) name() string {
	if k.Command != "" {
		return truncate(k.Command, 200)
	}
	return "a Go function"
}

func (h *Hooks) logger() *slog.Logger {
	if h.Logger != nil {
		return h.Logger
	}
	return slog.Default()
}

// merge adds o's answer to out's.
func merge(out, o Output) Output {
	join := func(a, b string) string {
		switch {
		case a == "":
			return b
		case b == "":
			return a
		}
		return a + "\n" + b
	}
	if o.Stop && !out.Stop {
		out.Stop, out.StopReason = true, o.StopReason
	}
	out.SystemMessage = join(out.SystemMessage, o.SystemMessage)
	if o.Block {
		out.Block = true
		out.Reason = join(out.Reason, o.Reason)
	}
	if rank(o.PermissionDecision) > rank(out.PermissionDecision) {
		out.PermissionDecision, out.PermissionDecisionReason = o.PermissionDecision, o.PermissionDecisionReason
	}
	if o.UpdatedInput != nil {
		out.UpdatedInput = o.UpdatedInput
	}
	out.AdditionalContext = join(out.AdditionalContext, strings.TrimSpace(o.AdditionalContext))
	return out
}

// rank orders permission decisions: deny over ask over allow over none.
func rank(d string) int {
	switch d {
	case Deny:
		return 3
	case Ask:
		return 2
	case Allow:
		return 1
	}
	return 0
}
