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
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// display prints what happens on the bus as it happens: the main agent's
// turns and tool calls, each agent's — the two run in parallel, so each of
// their lines names the agent — and the text the models write, line by
// line as it streams in (runner.Delta).
type display struct {
	w      io.Writer
	root   string
	mu     sync.Mutex
	agents map[string]string           // child session id -> agent type
	calls  map[string][]string         // session id -> the tools its last answer called
	text   map[string]*strings.Builder // session id -> text streamed, not printed yet
	stop   func()
}

func watch(w io.Writer, s *session.Session) *display {
	d := &display{w: w, root: s.ID(), agents: map[string]string{}, calls: map[string][]string{}, text: map[string]*strings.Builder{}}
	d.stop = s.Bus().SubscribeAll("taskagents.display", d.observe)
	return d
}

func (d *display) observe(_ context.Context, env bus.Envelope) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch e := env.Payload.(type) {
	case subagent.Started:
		d.agents[e.SessionID] = e.Name
		fmt.Fprintf(d.w, "  ┌ %s started (%s, model %s, %s from %s)\n", e.Name, e.AgentID, e.Model, e.Mode, e.ParentID)
	case subagent.Finished:
		d.flush(e.SessionID)
		delete(d.agents, e.SessionID)
		status := "finished"
		if e.Error != "" {
			status = "failed: " + e.Error
		}
		fmt.Fprintf(d.w, "  └ %s %s: %s, %d tokens\n", e.Name, status, plural(e.ToolCalls, "tool call"), e.Usage.TotalTokens)
	case runner.Delta:
		b := d.text[e.SessionID]
		if b == nil {
			b = &strings.Builder{}
			d.text[e.SessionID] = b
		}
		b.WriteString(e.Text)
		if strings.Contains(e.Text, "\n") {
			d.flushLines(e.SessionID)
		}
	case runner.PromptRendered:
		d.say(env.SessionID, "prompt %s/%s: %s; tools: %s", e.NS, e.Key, strings.Join(headings(e.Text), ", "), strings.Join(e.Tools, ", "))
	case subagent.TaskNotification:
		fmt.Fprintf(d.w, "◆ background task %s %s; its notification waits for the main agent's next model call\n", e.TaskID, e.Status)
	case runner.ConversationMessage:
		// A notification the main agent's next model call reads.
		if text, ok := strings.CutPrefix(e.Content, "<task-notification>\n"); ok && e.Role == model.RoleUser {
			d.say(env.SessionID, "reads: <task-notification> %s", firstLine(text))
		}
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
		d.say(env.SessionID, "model turn %d (%s): %s", e.Turn, e.Shown(), next)
	case runner.ToolInvoked:
		mark := "✓"
		if !e.Success {
			mark = "✗"
		}
		d.say(env.SessionID, "  %s %s %s → %s", mark, e.Name, clip(string(e.Arguments), 70), clip(firstLine(e.Result), 60))
	}
	return nil
}

// println prints a line of the program's own while the display runs:
// the background agent prints on its own goroutine meanwhile.
func (d *display) println(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintln(d.w, line)
}

// say prints a line of the main agent's, or of one of its agents'.
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

// flushLines prints the complete lines a session's model streamed, and
// keeps the line it is still writing.
func (d *display) flushLines(session string) {
	b := d.text[session]
	text := b.String()
	i := strings.LastIndexByte(text, '\n')
	b.Reset()
	b.WriteString(text[:i])
	d.flush(session)
	b.WriteString(text[i+1:])
}

// headings returns the titles of a prompt's top-level sections, the "# Task"
// heading of an agent's prompt included.
func headings(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if t, ok := strings.CutPrefix(l, "## "); ok {
			out = append(out, t)
		} else if l == "# Task" {
			out = append(out, "(# Task)")
		}
	}
	return out
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

// plural returns "1 tool call", "2 tool calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
