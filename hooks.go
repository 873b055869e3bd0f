package offshoot

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
)

// maxStopBlocks is how many times in a row Stop hooks may keep the main
// agent from finishing a query, as for a subagent's stop hooks; when it
// would finish once more, it finishes.
const maxStopBlocks = 8

// setupHooks takes the program's hooks (Options.Hooks): the client's
// logger for them unless they name one, and the subagent engine's start
// and stop hooks and the compaction's PreCompact made of theirs.
func (c *Client) setupHooks(opts Options, eo *subagent.Options) {
	if opts.Hooks == nil || len(opts.Hooks.List) == 0 {
		return
	}
	h := *opts.Hooks
	if h.Logger == nil {
		h.Logger = opts.Logger
	}
	if h.Logger == nil {
		h.Logger = slog.Default()
	}
	c.hooks = &h
	c.hookMode = string(permission.BypassPermissions) // no policy: every call runs
	if opts.Permissions != nil {
		c.hookMode = string(opts.Permissions.EffectiveMode())
	}
	if h.Has(hooks.SubagentStart) {
		eo.StartHooks = append(slices.Clone(eo.StartHooks), c.subagentStart)
	}
	if h.Has(hooks.SubagentStop) {
		eo.StopHooks = append(slices.Clone(eo.StopHooks), c.subagentStop)
	}
	if h.Has(hooks.PreCompact) {
		c.context.PreCompact = c.preCompact(opts.Context.PreCompact)
	}
}

// input is the input of a hook at ev in session sessionID, with what
// Claude Code gives at every event: the run's permission mode (that of
// Options.Permissions; bypassPermissions with none, as a client without
// one lets every call run), the project's directory as
// cwd (hooks.Hooks.Run fills it in), and no transcript path, for the main
// agent keeps no transcript file (its conversation is in its session).
func (c *Client) input(ev hooks.Event, sessionID string) hooks.Input {
	return hooks.Input{Event: ev, SessionID: sessionID, PermissionMode: c.hookMode}
}

// subagentStart runs the SubagentStart hooks: their context is added to
// the child's first message.
func (c *Client) subagentStart(ctx context.Context, e subagent.SubagentStart) (string, error) {
	in := c.input(hooks.SubagentStart, e.ParentSessionID)
	in.AgentID, in.AgentType = e.AgentID, e.AgentType
	out, err := c.hooks.Run(ctx, in)
	return out.AdditionalContext, err
}

// subagentStop runs the SubagentStop hooks: a block keeps the child
// working, with the reason as its next message.
func (c *Client) subagentStop(ctx context.Context, e subagent.SubagentStop) (string, error) {
	in := c.input(hooks.SubagentStop, e.ParentSessionID)
	in.AgentID, in.AgentType, in.TranscriptPath = e.AgentID, e.AgentType, e.TranscriptPath
	in.StopHookActive, in.LastAssistantMessage = e.StopHookActive, e.LastMessage
	out, err := c.hooks.Run(ctx, in)
	if err != nil || !out.Block || out.Stop {
		return "", err
	}
	return blockReason(out, hooks.SubagentStop), nil
}

// preCompact returns the compaction's PreCompact: the PreCompact hooks
// (trigger "manual" or "auto"), which may refuse an automatic compaction
// by blocking and add guidance for the summary as context, then, unless
// they refused, the program's own (next), when it set one.
func (c *Client) preCompact(next func(context.Context, runner.CompactionInfo) (string, bool)) func(context.Context, runner.CompactionInfo) (string, bool) {
	return func(ctx context.Context, info runner.CompactionInfo) (string, bool) {
		trigger := "auto"
		if info.Trigger == "manual" {
			trigger = "manual"
		}
		in := c.input(hooks.PreCompact, info.SessionID)
		in.Trigger, in.CustomInstructions = trigger, info.Guidance
		out, err := c.hooks.Run(ctx, in)
		if err != nil {
			return "", true
		}
		guidance, proceed := out.AdditionalContext, !out.Block && !out.Stop
		if next != nil && proceed {
			more, ok := next(ctx, info)
			guidance, proceed = strings.TrimSpace(guidance+"\n"+more), ok
		}
		return guidance, proceed
	}
}

// sessionStart runs the SessionStart hooks when the client starts
// (source "startup") or carries on a conversation (source "resume"):
// their context is added to the first query's message.
func (c *Client) sessionStart() {
	if !c.hooks.Has(hooks.SessionStart) {
		return
	}
	source := "startup"
	if c.lastEvaluation() != "" {
		source = "resume"
	}
	in := c.input(hooks.SessionStart, c.session.ID())
	in.Source = source
	out, _ := c.hooks.Run(context.Background(), in)
	c.startContext = out.AdditionalContext
}

// sessionEnd runs the SessionEnd hooks, at Close.
func (c *Client) sessionEnd() {
	if c.hooks.Has(hooks.SessionEnd) {
		in := c.input(hooks.SessionEnd, c.session.ID())
		in.Reason = "other"
		_, _ = c.hooks.Run(context.Background(), in)
	}
}

// userPrompt runs the UserPromptSubmit hooks on a query's prompt and
// returns the message to send: the prompt with their context, and the
// SessionStart hooks' when this is the first query, after a blank line.
// A block (or "continue": false) is an error saying why: nothing is sent.
func (c *Client) userPrompt(ctx context.Context, prompt string) (string, error) {
	var extra []string
	if c.startContext != "" {
		extra = append(extra, c.startContext)
	}
	if strings.TrimSpace(prompt) != "" && c.hooks.Has(hooks.UserPromptSubmit) {
		in := c.input(hooks.UserPromptSubmit, c.session.ID())
		in.Prompt = prompt
		out, err := c.hooks.Run(ctx, in)
		if err != nil {
			return "", err
		}
		switch {
		case out.Block:
			return "", fmt.Errorf("offshoot: a UserPromptSubmit hook blocked the prompt, which was not sent: %s", blockReason(out, hooks.UserPromptSubmit))
		case out.Stop:
			return "", fmt.Errorf("offshoot: a UserPromptSubmit hook stopped the query, and the prompt was not sent: %s", stopReason(out))
		}
		if out.AdditionalContext != "" {
			extra = append(extra, out.AdditionalContext)
		}
	}
	c.startContext = ""
	return strings.TrimSpace(strings.Join(append([]string{prompt}, extra...), "\n\n")), nil
}

// stopped runs the Stop hooks when the main agent would finish a query
// with its answer last (blocks counts the blocks so far): the reason to
// go on, or "" to finish.
func (c *Client) stopped(ctx context.Context, last string, blocks int) (string, error) {
	if !c.hooks.Has(hooks.Stop) {
		return "", nil
	}
	in := c.input(hooks.Stop, c.session.ID())
	in.StopHookActive, in.LastAssistantMessage = blocks > 0, last
	out, err := c.hooks.Run(ctx, in)
	if err != nil || !out.Block || out.Stop {
		return "", err
	}
	if blocks >= maxStopBlocks {
		c.hooks.Logger.Warn("offshoot: a Stop hook blocked the end of the query once more than allowed; the main agent finishes", "blocks", blocks)
		return "", nil
	}
	return blockReason(out, hooks.Stop), nil
}

// blockReason is a block's reason, or words saying that a hook of ev gave
// none.
func blockReason(out hooks.Output, ev hooks.Event) string {
	if r := strings.TrimSpace(out.Reason); r != "" {
		return r
	}
	return fmt.Sprintf("a %s hook asked to go on, without saying why", ev)
}

// stopReason is a "continue": false answer's reason, or words saying
// that none was given.
func stopReason(out hooks.Output) string {
	if r := strings.TrimSpace(out.StopReason); r != "" {
		return r
	}
	return "no reason given"
}

// maxNotification bounds, in characters, the question a Notification
// hook's message quotes.
const maxNotification = 300

// clipRunes cuts s to at most n characters, marking the cut.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// notify runs the Notification hooks of kind typ with message; they
// decide nothing.
func (c *Client) notify(ctx context.Context, typ, message string) {
	if !c.hooks.Has(hooks.Notification) {
		return
	}
	in := c.input(hooks.Notification, c.session.ID())
	in.NotificationType, in.Message = typ, message
	_, _ = c.hooks.Run(ctx, in)
}
