package subagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/bus"
)

// Hooks let a program take part in a child's life: a start hook may add
// context to the child's first message; a stop hook may keep the child
// working when it would finish. Each is also an event published on the
// parent's bus for observers (addressed to no session, like Started), so
// a program that only watches subscribes to SubagentStart or
// SubagentStop instead.

// maxStopBlocks is how many times in a row stop hooks may keep a child
// from finishing; when the child would finish once more, it finishes.
const maxStopBlocks = 8

// SubagentStart describes a child about to take its first turn: what a
// StartHook is given, and the event published on the parent's bus.
type SubagentStart struct {
	AgentID   string `json:"agent_id"`
	AgentType string `json:"agent_type"`
	// SessionID is the child's session; ParentSessionID the delegating
	// one.
	SessionID       string `json:"session_id"`
	ParentSessionID string `json:"parent_session_id"`
}

// SubagentStop describes a child that would finish: what a StopHook is
// given, and the event published on the parent's bus each time.
type SubagentStop struct {
	AgentID         string `json:"agent_id"`
	AgentType       string `json:"agent_type"`
	SessionID       string `json:"session_id"`
	ParentSessionID string `json:"parent_session_id"`
	// TranscriptPath is the child's transcript, "" when the engine keeps
	// none.
	TranscriptPath string `json:"transcript_path"`
	// LastMessage is the child's final text so far.
	LastMessage string `json:"last_message"`
	// StopHookActive is true when the child is finishing work a stop hook
	// asked for: a hook that blocks again should have a reason to.
	StopHookActive bool `json:"stop_hook_active"`
}

// StartHook runs before a child's first turn (also when it is resumed).
// The text it returns, if any, is added to the child's first user message
// after a blank line. An error or a panic fails the run.
type StartHook func(ctx context.Context, e SubagentStart) (extraContext string, err error)

// StopHook runs when a child would finish. A non-empty reason blocks the
// stop: the child goes on with the reason as its next user message, and
// its end is asked about again — eight blocks in a row at most,
// after which it finishes whatever the hook says. An error or a panic
// fails the run.
type StopHook func(ctx context.Context, e SubagentStop) (blockReason string, err error)

// starting publishes SubagentStart and runs the start hooks, returning
// the context they add.
func (e *Engine) starting(ctx context.Context, c *child) (string, error) {
	ev := SubagentStart{AgentID: c.id, AgentType: c.spec.Name, SessionID: c.session.ID(), ParentSessionID: c.spec.Parent.ID()}
	if bus.Observed[SubagentStart](c.spec.Parent.Bus()) {
		publish(ctx, c.spec.Parent, ev)
	}
	var extra []string
	for _, h := range e.startHooks {
		text, err := callHook(func() (string, error) { return h(ctx, ev) })
		if err != nil {
			return "", hookError("SubagentStart", err)
		}
		if text = strings.TrimSpace(text); text != "" {
			extra = append(extra, text)
		}
	}
	return strings.Join(extra, "\n\n"), nil
}

// stopping publishes SubagentStop and runs the stop hooks, returning the
// reason to go on, or "" to finish. blocks counts the blocks so far.
func (e *Engine) stopping(ctx context.Context, c *child, last string, blocks int) (string, error) {
	observed := bus.Observed[SubagentStop](c.spec.Parent.Bus())
	if len(e.stopHooks) == 0 && !observed {
		return "", nil
	}
	ev := SubagentStop{AgentID: c.id, AgentType: c.spec.Name, SessionID: c.session.ID(), ParentSessionID: c.spec.Parent.ID(),
		TranscriptPath: c.rec.transcriptPath(), LastMessage: last, StopHookActive: blocks > 0}
	if observed {
		publish(ctx, c.spec.Parent, ev)
	}
	var reasons []string
	for _, h := range e.stopHooks {
		reason, err := callHook(func() (string, error) { return h(ctx, ev) })
		if err != nil {
			return "", hookError("SubagentStop", err)
		}
		if reason = strings.TrimSpace(reason); reason != "" {
			reasons = append(reasons, reason)
		}
	}
	if len(reasons) > 0 && blocks >= maxStopBlocks {
		e.log().Warn("subagent: a stop hook blocked the end once more than allowed; the agent finishes",
			"agent_id", c.id, "agent_type", c.spec.Name, "blocks", blocks)
		return "", nil
	}
	return strings.Join(reasons, "\n\n"), nil
}

// callHook calls a hook, turning a panic into an error.
func callHook(h func() (string, error)) (s string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h()
}
