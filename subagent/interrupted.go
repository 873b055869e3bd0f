package subagent

import (
	"context"

	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// TaskStarted records in the parent session that a background task
// started: a front end adds it to the events of the tool result that
// launched the task (Task.Started). A task that ends leaves its
// runner.Spent record (its Source the task's id) with its notification;
// a task whose process died first leaves none — Interrupted finds it
// when the session is opened again, and Interrupt tells the parent.
type TaskStarted struct {
	TaskID      string `json:"task_id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// SessionID is the child's session, stored under the parent's when
	// the parent is (package store).
	SessionID string `json:"session_id"`
}

// Started returns the record of the task's start, for the parent's
// session.
func (t *Task) Started() TaskStarted { return t.started }

// Interrupted returns the background tasks snap's session started that
// never ended — the process running them died first — in the order they
// started.
func Interrupted(snap session.Snapshot) []TaskStarted {
	ended := map[string]bool{}
	for sp := range session.SliceOfSnapshot[runner.Spent](snap).All() {
		ended[sp.Source] = true
	}
	var out []TaskStarted
	for t := range session.SliceOfSnapshot[TaskStarted](snap).All() {
		if !ended[t.TaskID] {
			out = append(out, t)
		}
	}
	return out
}

// Interrupt tells parent that the process running task t ended before the
// task did: the <task-notification> its model reads of a failed task,
// with what the task wrote (produced, its last text; "" for none), and a
// runner.Spent record that marks it ended, so that it is told once.
func Interrupt(ctx context.Context, parent *session.Session, t TaskStarted, produced string) error {
	n := TaskNotification{TaskID: t.TaskID, Status: TaskStatusFailed, Summary: produced,
		Error: "the process that ran it ended before it finished"}
	text := notificationText(Spec{Name: t.Name, Description: t.Description}, n)
	return parent.Dispatch(ctx, runner.Inbound{Source: "task", Text: text}, runner.Spent{Source: t.TaskID, Counted: true})
}
