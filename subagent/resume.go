package subagent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// Resuming continues an agent that finished — to ask a follow-up of the
// reviewer that just reported, with everything it read still in its
// conversation. A front end looks the agent up with Agent, builds the
// Spec of the same type and model at the record's (the same prompt and
// tools), sets Spec.Resume to the id and Spec.Request.UserMessage to the new
// prompt, and runs it with Run or Start. The engine loads the
// conversation from the transcript, drops any tool call left without its
// result and any result left without its call (the run ended between
// the two), adds the new prompt and continues under the same id, at the
// original depth; the transcript grows on.
//
// What can be resumed is an agent whose conversation started from its
// task alone, whatever its state started from: a fresh agent works on an
// empty state again, a forked one on its parent's state as it is now (or
// on Spec.Snapshot) — the state it worked on before was a copy, discarded
// when it ended, while its parent's has moved on, with the files it
// wrote if its front end copied them back. An agent that carried on an
// earlier conversation (Spec.Request.Messages) cannot be resumed: a new one
// carries on that conversation as it is now.

// Agent returns what the store (Options.Store) or the transcripts record
// of the agent with the given id, in the delegation tree of parent (the
// session a tool call that resumes it runs on). An unknown id is
// ErrTaskNotFound, whose text is "No agent found with ID: <id>". An
// engine that keeps neither a store nor transcripts knows no agent: its
// error matches ErrNotResumable and says that agents cannot be resumed
// here.
func (e *Engine) Agent(ctx context.Context, parent *session.Session, id string) (transcript.Meta, error) {
	if parent == nil {
		return transcript.Meta{}, &Error{Kind: ErrInvalidSpec, Msg: "subagent: Agent needs the session the agent was delegated from"}
	}
	if e.transcripts == "" && e.store == nil {
		return transcript.Meta{}, noTranscripts(id)
	}
	if id == "" {
		return transcript.Meta{}, agentNotFound(id)
	}
	root := rootOf(ctx, parent)
	if e.transcripts != "" {
		if m, err := e.transcripts.LoadMeta(root, id); err == nil {
			return m, nil
		}
	}
	if e.store != nil {
		_, m, found, err := e.storedAgent(ctx, root, id)
		if err != nil {
			return transcript.Meta{}, unreadable(id, err)
		}
		if found {
			return m, nil
		}
	}
	return transcript.Meta{}, agentNotFound(id)
}

// loadResumed loads the conversation of the agent the spec resumes: from
// the store when it holds the agent, else from its transcript. The
// transcript, when there is one, goes on either way (c.prior).
func (c *child) loadResumed(ctx context.Context) error {
	e, id := c.e, c.spec.Resume
	if e.transcripts == "" && e.store == nil {
		return noTranscripts(id)
	}
	if e.running(id) {
		return stillRunning(id)
	}
	var m transcript.Meta
	var msgs []model.Message
	stored := false
	if e.store != nil {
		h, sm, found, err := e.storedAgent(ctx, c.root, id)
		if err == nil && found {
			msgs, err = e.storedConversation(ctx, h.ID)
		}
		if err != nil {
			return unreadable(id, err)
		}
		m, stored = sm, found
	}
	if e.transcripts != "" {
		tr, err := e.transcripts.Load(c.root, id)
		switch {
		case err == nil && stored:
			tr.Messages = nil // the store's are the conversation
			c.prior = tr
		case err == nil:
			m, msgs = tr.Meta, tr.Messages
			tr.Messages = nil // c.resumed holds them now
			c.prior = tr
		case stored:
			// The store's record is enough; a new transcript starts.
		case errors.Is(err, fs.ErrNotExist):
			return agentNotFound(id)
		default:
			return unreadable(id, err)
		}
	}
	switch {
	case !stored && c.prior == nil, m.Type == "":
		return agentNotFound(id)
	case m.ForkedContext:
		return &Error{Kind: ErrNotResumable, Msg: fmt.Sprintf("Agent %s cannot be resumed: it carried on its caller's conversation, and only agents that started from their task alone can be resumed. Start a new agent instead: it carries on the conversation as it is now.", clip(id))}
	case m.Type != c.spec.Name:
		return &Error{Kind: ErrNotResumable, Msg: fmt.Sprintf("Agent %s is a %s agent, not %s; resume it as its own type", clip(id), m.Type, c.spec.Name)}
	}
	// A conversation whose task was in the prompt starts with the system
	// message; the prompt is rendered again, so it is not sent twice.
	c.resumed = repairConversation(slices.DeleteFunc(msgs, func(m model.Message) bool { return m.Role == model.RoleSystem }))
	c.depth = max(m.Depth, 1)
	return nil
}

// unreadable is the error of a resume whose record could not be read.
func unreadable(id string, err error) error {
	return &Error{Kind: ErrNotResumable, Msg: fmt.Sprintf("Agent %s cannot be resumed: %v", clip(id), err), Err: err}
}

// repairConversation drops what a conversation cut short leaves that no
// provider accepts: tool calls no tool message answers (an assistant
// message left with neither text nor calls goes too), and tool messages
// that answer no call before them.
func repairConversation(msgs []model.Message) []model.Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == model.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	called := map[string]bool{}
	out := make([]model.Message, 0, len(msgs))
	for _, m := range msgs {
		switch {
		case m.Role == model.RoleAssistant && len(m.ToolCalls) > 0:
			calls := make([]model.ToolCall, 0, len(m.ToolCalls))
			for _, tc := range m.ToolCalls {
				if answered[tc.ID] {
					calls = append(calls, tc)
					called[tc.ID] = true
				}
			}
			if len(calls) == 0 && m.Content == "" {
				continue
			}
			m.ToolCalls = calls
			if len(calls) == 0 {
				m.ToolCalls = nil
			}
		case m.Role == model.RoleTool && !called[m.ToolCallID]:
			continue
		}
		out = append(out, m)
	}
	return out
}
