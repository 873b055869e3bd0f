package subagent

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// What the parent's model reads of a background task that ended: a
// <task-notification> block in plain words — which task, how it ended,
// its text, what it spent — and nothing of its tool calls. Text from the
// child or the program cannot open or close a block of its own.

// notificationTag matches what would open or close a notification block.
var notificationTag = regexp.MustCompile(`(?i)<(\s*/?\s*task-notification)`)

// defuse keeps s from opening or closing a notification block.
func defuse(s string) string { return notificationTag.ReplaceAllString(s, "($1") }

// notificationText is the Inbound message that tells the parent's model
// that a background task ended.
func notificationText(spec Spec, n TaskNotification) string {
	var b strings.Builder
	b.WriteString("<task-notification>\nThe background task ")
	b.WriteString(defuse(n.TaskID))
	if d := oneLine(spec.Description); d != "" {
		fmt.Fprintf(&b, " (%s, by the %s agent)", defuse(d), defuse(oneLine(spec.Name)))
	} else {
		fmt.Fprintf(&b, " (by the %s agent)", defuse(oneLine(spec.Name)))
	}
	b.WriteString(" ")
	b.WriteString(endedText(n.Status, n.Error))
	text := defuse(strings.TrimSpace(n.Summary))
	switch {
	case text == "":
		b.WriteString("\nIt wrote no result.")
	case n.Status == TaskStatusCompleted:
		b.WriteString("\n\nIts result:\n")
		b.WriteString(text)
	default:
		b.WriteString("\n\nWhat it wrote before it ended:\n")
		b.WriteString(text)
	}
	b.WriteString("\n\n")
	b.WriteString(spentText(n.Usage, n.Duration))
	if n.OutputFile != "" {
		b.WriteString(" The same result is in the file ")
		b.WriteString(defuse(n.OutputFile))
		b.WriteString(".")
	}
	b.WriteString("\n</task-notification>")
	return b.String()
}

// endedText says how a task ended.
func endedText(status TaskStatus, errText string) string {
	switch status {
	case TaskStatusCompleted:
		return "has completed."
	case TaskStatusStopped:
		return "was stopped before it finished."
	}
	if errText == "" {
		return "failed."
	}
	return "failed: " + strings.TrimSuffix(defuse(oneLine(errText)), ".") + "."
}

// outputText is what a background task's output file holds once it has
// ended: its text, then how it ended and what it spent.
func outputText(text string, status TaskStatus, errText string, out *Outcome, d time.Duration) string {
	var u Usage
	if out != nil {
		u = out.Usage
	}
	ended := endedText(status, errText)
	tail := "(It " + ended + " " + spentText(u, d) + ")"
	if text = strings.TrimSpace(text); text == "" {
		return tail + "\n"
	}
	return text + "\n\n" + tail + "\n"
}

// spentText says in plain words what a run spent.
func spentText(u Usage, d time.Duration) string {
	calls := 0
	for _, n := range u.ToolCalls {
		calls += n
	}
	return fmt.Sprintf("It used %d tokens, %s and %s in %s.", u.Total.TotalTokens,
		count(u.ModelCalls, "model call"), count(calls, "tool call"), d.Round(time.Millisecond))
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// oneLine returns s on one line, cut to 200 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
