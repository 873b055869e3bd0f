package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
)

// display prints what happens on the bus as a tree, as it happens: the
// parent's turns and tool calls, and each subagent's — running in parallel
// with its siblings, so each of their lines names the agent — including
// the text the models write, line by line as it streams in.
type display struct {
	w      io.Writer
	root   string
	mu     sync.Mutex
	agents map[string]string           // child session id -> agent id
	text   map[string]*strings.Builder // session id -> text streamed, not printed yet
	calls  map[string][]string         // session id -> the tools its model's last answer calls
	stop   func()
}

func watch(w io.Writer, b *bus.Bus, root string) *display {
	d := &display{w: w, root: root, agents: map[string]string{}, text: map[string]*strings.Builder{}, calls: map[string][]string{}}
	d.stop = b.SubscribeAll("planstep.display", d.observe)
	return d
}

func (d *display) observe(_ context.Context, env bus.Envelope) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch e := env.Payload.(type) {
	case subagent.Started:
		d.agents[e.SessionID] = e.AgentID
		fmt.Fprintf(d.w, "  ┌ subagent %s started: %s, %s from %s, depth %d\n", e.AgentID, e.Name, e.Mode, e.ParentID, e.Depth)
	case subagent.Finished:
		d.flush(e.SessionID)
		delete(d.agents, e.SessionID)
		status := "finished"
		if e.Error != "" {
			status = "failed: " + e.Error
		}
		fmt.Fprintf(d.w, "  └ subagent %s %s in %s: %d tool calls, %d tokens\n", e.AgentID, status, ms(e.Duration.Seconds()), e.ToolCalls, e.Usage.TotalTokens)
	case runner.Delta:
		b := d.text[e.SessionID]
		if b == nil {
			b = &strings.Builder{}
			d.text[e.SessionID] = b
		}
		b.WriteString(e.Text)
		if strings.Contains(e.Text, "\n") {
			d.flush(e.SessionID)
		}
	case runner.PromptRendered:
		if env.SessionID == d.root {
			fmt.Fprintf(d.w, "── prompt %s/%s rendered (%d lines):\n", e.NS, e.Key, strings.Count(e.Text, "\n")+1)
			for _, l := range strings.Split(e.Text, "\n") {
				if strings.HasPrefix(l, "## ") {
					fmt.Fprintf(d.w, "     %s\n", l)
				}
			}
			fmt.Fprintf(d.w, "   tools: %s\n", strings.Join(e.Tools, ", "))
		} else {
			d.line(env, "prompt %s/%s rendered with the parent's %d tools", e.NS, e.Key, len(e.Tools))
		}
	case runner.ConversationMessage:
		// The answer is recorded just before its ModelCalled.
		if e.Role == model.RoleAssistant {
			var names []string
			for _, c := range e.ToolCalls {
				names = append(names, c.Name)
			}
			d.calls[env.SessionID] = names
		}
	case runner.ModelCalled:
		d.flush(env.SessionID)
		next := "answers"
		if calls := d.calls[env.SessionID]; len(calls) > 0 {
			next = "calls " + strings.Join(calls, ", ")
		}
		d.line(env, "model turn %d (%s): %s, %d tokens", e.Turn, e.Shown(), next, e.Usage.TotalTokens)
	case runner.ToolInvoked:
		mark := "✓"
		if !e.Success {
			mark = "✗"
		}
		d.line(env, "  %s %s %s → %s", mark, e.Name, clip(string(e.Arguments), 60), clip(firstLine(e.Result), 70))
	case runner.PromptExecuted:
		status := "done"
		if !e.Succeeded() {
			status = e.Status + " (" + e.ErrorType + ")"
		}
		d.line(env, "%s after %d turns and %d tool calls, %d tokens", status, e.Turns, e.ToolCalls, e.Usage.TotalTokens)
	}
	return nil
}

// line prints a line of the parent's, or of one of its subagents'.
func (d *display) line(env bus.Envelope, format string, args ...any) {
	d.say(env.SessionID, format, args...)
}

func (d *display) say(session, format string, args ...any) {
	if agent, ok := d.agents[session]; ok {
		fmt.Fprintf(d.w, "  │ %s "+format+"\n", append([]any{agent}, args...)...)
		return
	}
	if session == d.root {
		fmt.Fprintf(d.w, "▸ "+format+"\n", args...)
	}
}

// flush prints the text a session's model streamed since the last flush,
// one line per line it wrote.
func (d *display) flush(session string) {
	b := d.text[session]
	if b == nil || b.Len() == 0 {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		d.say(session, "  ✎ %s", l)
	}
	b.Reset()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func ms(seconds float64) string { return fmt.Sprintf("%.1fms", seconds*1000) }
