package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// show prints what happens on the session's bus until stop is called: the
// planner's text as it streams, every tool call, and the subagents as they
// start and finish. (The reviewers run in parallel, so their own text is
// left out: a line of each would interleave.)
func show(w io.Writer, s *session.Session) (stop func()) {
	var mu sync.Mutex
	agents := map[string]string{} // child session id -> agent id
	midLine := false
	newline := func() {
		if midLine {
			fmt.Fprintln(w)
			midLine = false
		}
	}
	return s.Bus().SubscribeAll("example.show", func(_ context.Context, env bus.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		switch e := env.Payload.(type) {
		case runner.Delta:
			if e.SessionID == s.ID() && e.Text != "" {
				fmt.Fprint(w, e.Text)
				midLine = true
			}
		case runner.ToolInvoked:
			newline()
			who := "planner"
			if id, ok := agents[env.SessionID]; ok {
				who = id
			}
			mark := "✓"
			if !e.Success {
				mark = "✗"
			}
			fmt.Fprintf(w, "  [%s] %s %s %s\n", who, mark, e.Name, clip(string(e.Arguments), 70))
		case subagent.Started:
			newline()
			agents[e.SessionID] = e.AgentID
			fmt.Fprintf(w, "  ┌ subagent %s started (%s)\n", e.AgentID, e.Name)
		case subagent.Finished:
			newline()
			status := "finished"
			if e.Error != "" {
				status = "failed: " + clip(e.Error, 100)
			}
			fmt.Fprintf(w, "  └ subagent %s %s in %s, %d tokens\n", e.AgentID, status, e.Duration.Round(1e6), e.Usage.TotalTokens)
		case runner.PromptExecuted:
			newline()
		}
		return nil
	})
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
