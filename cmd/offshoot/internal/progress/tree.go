// Package progress shows what happens on a bus while agents run, as it
// happens: Tree prints a readable tree for a person — prompts rendered,
// model turns with their streamed text, tool calls, subagents started and
// finished, artifacts arriving in the parent — and JSON prints every event
// as a JSON line for a program. Both read the bus's events only, so they
// show any run: the demo's, or a user's own.
package progress

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Options says how Tree prints.
type Options struct {
	// Color writes ANSI colours: for a terminal only.
	Color bool
	// Width, when above zero, fits the tree to a terminal that many
	// columns wide: the models' text is wrapped, every other line is cut
	// short with "…", and long ids are shown by their first 8 characters.
	// Zero prints whole lines and ids, for a pipe or a file.
	Width int
}

// Tree prints the events of b to w as a tree until stop is called. The
// main agent's lines start at the margin and its text streams piece by
// piece; each subagent's lines are indented by its depth and name it,
// since siblings run in parallel, and its text is printed a whole line at
// a time so that siblings' lines never mix. A model turn that writes text
// opens with a "model turn N" line, the text below it, and ends with a
// line that says what the turn did; a turn without text is one line. Text
// a model wrote is printed with its control characters replaced. stop
// ends the tree, finishing a line left open.
func Tree(b *bus.Bus, w io.Writer, opts Options) (stop func()) {
	t := &tree{
		w: w, paint: painter(opts.Color), width: opts.Width,
		agents: map[string]child{}, text: map[string]*strings.Builder{},
		calls: map[string][]string{}, arriving: map[string]map[string]bool{},
		headed: map[string]int{}, shown: map[turnKey]int{}, thinking: map[string]*strings.Builder{},
	}
	unsubscribe := b.SubscribeAll("offshoot.progress.tree", t.observe)
	return func() {
		unsubscribe()
		t.mu.Lock()
		defer t.mu.Unlock()
		t.closeLine()
	}
}

// child is a subagent the tree has seen start.
type child struct {
	id    string
	depth int
}

type tree struct {
	w     io.Writer
	paint func(style, string) string
	width int // see Options.Width

	mu     sync.Mutex
	agents map[string]child            // child session id -> the subagent
	text   map[string]*strings.Builder // child session id -> text not printed yet
	// The main agent's streamed line: whether it is open, the columns it
	// takes so far, whether a space is due before the next word, and the
	// word not printed yet (it goes on this line or, when it does not fit,
	// on the next).
	open bool
	col  int
	gap  bool
	word strings.Builder
	// headed holds, per session, the model turn whose opening line is
	// printed (its text follows).
	headed map[string]int
	calls  map[string][]string // session id -> the tools its model's last answer calls
	// arriving holds, per session, the files a dispatch just recorded
	// there copies back from its child.
	arriving map[string]map[string]bool
	// shown counts the bytes of streamed text shown of each model turn
	// (session id and turn), up to maxTurnText.
	shown map[turnKey]int
	// thinking holds, per session, the reasoning its model streamed in
	// the current turn and not shown yet (see thinking.go).
	thinking map[string]*strings.Builder
	// context is how full the window of each session's last model call
	// was, in percent (runner.ContextUsage), until its turn line shows it.
	context map[string]int
}

func (t *tree) observe(_ context.Context, env bus.Envelope) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e := env.Payload.(type) {
	case runner.Delta:
		t.delta(e)
	case runner.PromptRendered:
		if e.Repeat {
			t.head(env.SessionID, "prompt %s rendered · as before", t.paint(bold, cli.Printable(e.NS+"/"+e.Key)))
			break
		}
		t.head(env.SessionID, "prompt %s rendered · %s · %s", t.paint(bold, cli.Printable(e.NS+"/"+e.Key)),
			textSize(e.Text), count(len(e.Tools), "tool"))
	case runner.ConversationMessage:
		// An answer is recorded just before its ModelCalled.
		if e.Role == model.RoleAssistant {
			var names []string
			for _, c := range e.ToolCalls {
				names = append(names, cli.Printable(c.Name))
			}
			t.calls[env.SessionID] = names
		}
	case runner.ContextUsage:
		// Recorded just before its ModelCalled.
		if t.context == nil {
			t.context = map[string]int{}
		}
		t.context[env.SessionID] = e.Percent()
	case runner.ModelCalled:
		delete(t.arriving, env.SessionID)
		t.showThinking(env.SessionID, e.Turn)
		t.modelCalled(env.SessionID, e)
	case runner.ToolInvoked:
		t.toolInvoked(env.SessionID, e)
	case vfs.FileWritten:
		if t.arriving[env.SessionID][e.Path] {
			t.sub(env.SessionID, "%s %s copied back · %s", t.paint(cyan, "⇠ artifact"), cli.Printable(e.Path), size(len(e.Content)))
		}
	case planning.StepMarked:
		if t.arriving[env.SessionID] != nil {
			t.sub(env.SessionID, "%s step %s marked %s", t.paint(cyan, "⚑ plan"), cli.Printable(e.StepID), e.Status)
		}
	case runner.PromptExecuted:
		t.ended(env.SessionID, e)
	case subagent.Started:
		t.started(e)
	case remote.Ran:
		if _, ok := t.agents[env.SessionID]; ok {
			again := ""
			if e.Attempt > 1 {
				again = fmt.Sprintf(" (attempt %d)", e.Attempt)
			}
			t.sub(env.SessionID, "%s on worker pid %d%s", t.paint(cyan, "⇢"), e.PID, again)
		}
	case subagent.Finished:
		t.finished(e)
	case subagent.TaskNotification:
		t.line(fmt.Sprintf("%s background task %s %s · %s · %s", t.paint(bold, "▸"), t.short(cli.Printable(e.TaskID)), e.Status,
			tokens(e.Usage.Total), duration(e.Duration)))
	}
	return nil
}

func (t *tree) modelCalled(session string, e runner.ModelCalled) {
	t.flush(session, e.Turn, true)
	if _, isChild := t.agents[session]; !isChild {
		t.closeLine()
	}
	delete(t.shown, turnKey{session, e.Turn})
	n, opened := t.headed[session]
	opened = opened && n == e.Turn
	delete(t.headed, session)
	next := "answers"
	if calls := t.calls[session]; len(calls) > 0 {
		next = "calls " + strings.Join(calls, ", ")
	}
	delete(t.calls, session)
	if e.Error != "" {
		next = t.paint(red, "failed") + ": " + clip(firstLine(cli.Printable(e.Error)), 120)
	}
	name := cli.Printable(e.Shown())
	spent := tokens(e.Usage)
	if pct, ok := t.context[session]; ok {
		spent += fmt.Sprintf(" · %d%% of context", pct)
		delete(t.context, session)
	}
	if opened {
		// The turn's line and text are above: say how it ended.
		parts := []string{next}
		if name != "" {
			parts = append(parts, name)
		}
		if e.Error == "" {
			parts = append(parts, t.paint(dim, spent), t.paint(dim, duration(e.Duration)))
		}
		t.sub(session, "%s %s", t.paint(dim, "↳"), strings.Join(parts, " · "))
		return
	}
	if name != "" {
		name = " (" + name + ")"
	}
	if e.Error != "" {
		t.head(session, "model turn %d%s %s", e.Turn, name, next)
		return
	}
	t.head(session, "model turn %d%s · %s · %s · %s", e.Turn, name, next, t.paint(dim, spent), t.paint(dim, duration(e.Duration)))
}

func (t *tree) toolInvoked(session string, e runner.ToolInvoked) {
	delete(t.arriving, session)
	mark := t.paint(green, "✓")
	if !e.Success {
		mark = t.paint(red, "✗")
	}
	name := cli.Printable(e.Name)
	args, result := 60, 70
	if t.width > 0 {
		// On a terminal the arguments take at most half of what the line
		// has left; the result the rest (the line is cut where it ends).
		args = min(args, max(16, (t.width-columns.Width(t.prefix(session, true))-columns.Width(name)-6)/2))
	}
	t.sub(session, "%s %s %s → %s", mark, t.paint(bold, name), clip(cli.Printable(string(e.Arguments)), args),
		clip(firstLine(cli.Printable(e.Result)), result))
	if e.Name != promptsubagent.ToolName || !e.Success {
		return
	}
	var res promptsubagent.DispatchSubagentResult
	if json.Unmarshal(e.Value, &res) != nil {
		return
	}
	files := map[string]bool{}
	for _, a := range res.Artifacts {
		files[a] = true
	}
	t.arriving[session] = files
}

func (t *tree) started(e subagent.Started) {
	depth := max(e.Depth, 1)
	if parent, ok := t.agents[e.ParentID]; ok {
		depth = parent.depth + 1
	}
	id := t.short(cli.Printable(e.AgentID))
	t.agents[e.SessionID] = child{id: id, depth: depth}
	from := "fresh"
	if e.Mode == "forked" {
		from = "forked from " + t.short(cli.Printable(e.ParentID))
	}
	t.line(fmt.Sprintf("%s%s %s started · %s · %s", indent(depth), t.paint(cyan, "┌"), t.paint(cyan, id), cli.Printable(e.Name), from))
}

func (t *tree) finished(e subagent.Finished) {
	c, ok := t.agents[e.SessionID]
	if !ok {
		return
	}
	t.flush(e.SessionID, t.headed[e.SessionID], true)
	status := "finished"
	if e.Error != "" {
		status = t.paint(red, "failed") + ": " + clip(firstLine(cli.Printable(e.Error)), 100)
	}
	t.line(fmt.Sprintf("%s%s %s %s in %s · %s, %s · %s", indent(c.depth), t.paint(cyan, "└"), t.paint(cyan, c.id), status,
		duration(e.Duration), count(e.ModelCalls, "model turn"), count(e.ToolCalls, "tool call"), tokens(e.Usage)))
	delete(t.agents, e.SessionID)
	delete(t.text, e.SessionID)
}

// ended closes what the tree holds of an evaluation of session's: every
// evaluation ends with its PromptExecuted, succeeded or not. The main
// agent's says how it ended; a subagent's end is its Finished line.
func (t *tree) ended(session string, e runner.PromptExecuted) {
	t.flush(session, t.headed[session], true)
	delete(t.arriving, session)
	delete(t.headed, session)
	delete(t.calls, session)
	for k := range t.shown {
		if k.session == session {
			delete(t.shown, k)
		}
	}
	if _, isChild := t.agents[session]; isChild {
		return
	}
	status := "done"
	switch {
	case e.Parked():
		status = "waiting for an answer"
	case !e.Succeeded():
		status = t.paint(red, cli.Printable(e.Status)) + ": " + clip(firstLine(cli.Printable(e.Error)), 120)
	}
	spent := tokens(e.Usage)
	if !e.ChildUsage.IsZero() {
		spent += " · " + tokens(e.Usage.Add(e.ChildUsage)) + " with its agents"
	}
	t.head(session, "%s · %s, %s · %s · %s", status, count(e.Turns, "model turn"), count(e.ToolCalls, "tool call"),
		spent, duration(e.Duration))
}

// prefix is what starts session's lines: for a subagent its place in the
// tree and its id; sub is for the lines within a step.
func (t *tree) prefix(session string, sub bool) string {
	c, isChild := t.agents[session]
	switch {
	case isChild && sub:
		return indent(c.depth) + t.paint(cyan, "│") + " " + t.paint(cyan, c.id) + "   "
	case isChild:
		return indent(c.depth) + t.paint(cyan, "│") + " " + t.paint(cyan, c.id) + " "
	case sub:
		return "  "
	}
	return t.paint(bold, "▸") + " "
}

// head prints a line that opens a step of session's: a prompt, a model
// turn, the end.
func (t *tree) head(session, format string, args ...any) {
	t.line(t.prefix(session, false) + fmt.Sprintf(format, args...))
}

// sub prints a line within a step of session's: a tool call, an
// artifact.
func (t *tree) sub(session, format string, args ...any) {
	t.line(t.prefix(session, true) + fmt.Sprintf(format, args...))
}

// say prints a line of text a subagent's model wrote, wrapped to the
// terminal.
func (t *tree) say(session, text string) {
	p := t.prefix(session, true) + t.paint(dim, "✎") + " "
	w := columns.Width(p)
	for i, l := range columns.Wrap(text, t.width-w) {
		if i > 0 {
			p = strings.Repeat(" ", w)
		}
		t.line(p + l)
	}
}

// line prints one line of the tree, cut to the terminal's width.
func (t *tree) line(s string) {
	t.closeLine()
	fmt.Fprintln(t.w, columns.Cut(s, t.width))
}

// short is id as the tree shows it: on a terminal, a long id by its first
// 8 characters (enough to tell a run's agents apart); whole otherwise.
func (t *tree) short(id string) string {
	if t.width > 0 && len(id) > 12 {
		return id[:8]
	}
	return id
}

// flush prints the text a subagent's model streamed since the last flush
// in turn, one line per line it wrote; all of it when whole, else its
// complete lines only.
func (t *tree) flush(session string, turn int, whole bool) {
	b := t.text[session]
	if b == nil || b.Len() == 0 {
		return
	}
	s := b.String()
	rest := ""
	if !whole {
		i := strings.LastIndexByte(s, '\n')
		s, rest = s[:i], s[i+1:]
	}
	b.Reset()
	b.WriteString(rest)
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			t.openTurn(session, turn)
			t.say(session, strings.TrimSpace(cli.Printable(l)))
		}
	}
}

// closeLine ends the main agent's streamed line, if one is open.
func (t *tree) closeLine() {
	t.printWord()
	if t.open {
		fmt.Fprintln(t.w)
		t.open, t.gap = false, false
	}
}

func indent(depth int) string { return strings.Repeat("  ", depth) }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
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

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func textSize(s string) string {
	return fmt.Sprintf("%s, %s", count(strings.Count(s, "\n")+1, "line"), size(len(s)))
}

func size(n int) string {
	if n < 1024 {
		return count(n, "byte")
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

// duration prints d rounded to what a person reads: 0.4ms, 12ms, 1.2s.
func duration(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// tokens says what a usage counts, and how many of its input tokens the
// provider read from its prompt cache; when the provider reported none, it
// says so instead of "0 tokens".
func tokens(u model.Usage) string {
	var s string
	switch {
	case u.Unreported && u.TotalTokens == 0:
		return "usage not reported"
	case u.Unreported:
		s = "at least " + count(u.TotalTokens, "token")
	default:
		s = count(u.TotalTokens, "token")
	}
	if u.CachedInputTokens > 0 {
		s += fmt.Sprintf(" (%d cached)", u.CachedInputTokens)
	}
	return s
}
