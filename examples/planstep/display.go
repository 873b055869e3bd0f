package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
)

// display prints what happens on the bus as a tree: the parent's turns and
// tool calls as they happen, and each subagent's block — gathered while it
// runs in parallel with its siblings — when it finishes.
type display struct {
	w      io.Writer
	root   string
	mu     sync.Mutex
	blocks map[string]*strings.Builder // child session id -> its lines
	stop   func()
}

func watch(w io.Writer, b *bus.Bus, root string) *display {
	d := &display{w: w, root: root, blocks: map[string]*strings.Builder{}}
	d.stop = b.SubscribeAll("planstep.display", d.observe)
	return d
}

func (d *display) observe(_ context.Context, env bus.Envelope) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch e := env.Payload.(type) {
	case subagent.Started:
		b := &strings.Builder{}
		fmt.Fprintf(b, "  ┌ subagent %s started: %s, %s from %s, depth %d\n", e.AgentID, e.Name, e.Mode, e.ParentID, e.Depth)
		d.blocks[e.SessionID] = b
	case subagent.Finished:
		b := d.blocks[e.SessionID]
		delete(d.blocks, e.SessionID)
		status := "finished"
		if e.Error != "" {
			status = "failed: " + e.Error
		}
		fmt.Fprintf(b, "  └ subagent %s %s in %s: %d tool calls, %d tokens\n", e.AgentID, status, ms(e.Duration.Seconds()), e.ToolCalls, e.Usage.TotalTokens)
		fmt.Fprint(d.w, b.String())
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
	case runner.ModelCalled:
		next := "answers"
		if len(e.ToolCalls) > 0 {
			next = "calls " + strings.Join(e.ToolCalls, ", ")
		}
		d.line(env, "model turn %d (%s): %s, %d tokens", e.Turn, e.Model, next, e.Usage.TotalTokens)
	case runner.ToolInvoked:
		mark := "✓"
		if !e.Success {
			mark = "✗"
		}
		d.line(env, "  %s %s %s → %s", mark, e.Name, clip(string(e.Arguments), 60), clip(firstLine(e.Result), 70))
	case runner.PromptExecuted:
		d.line(env, "done after %d turns and %d tool calls, %d tokens", e.Turns, e.ToolCalls, e.Usage.TotalTokens)
	}
	return nil
}

// line prints a parent's line now, or adds a child's line to its block.
func (d *display) line(env bus.Envelope, format string, args ...any) {
	if b, ok := d.blocks[env.SessionID]; ok {
		fmt.Fprintf(b, "  │ "+format+"\n", args...)
		return
	}
	if env.SessionID == d.root {
		fmt.Fprintf(d.w, "▸ "+format+"\n", args...)
	}
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
