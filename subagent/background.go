package subagent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// TaskStatus is where a background task stands.
type TaskStatus string

// The statuses of a task. A task runs, then ends completed, failed or
// stopped (by Task.Stop, or because its run's context was cancelled).
const (
	TaskStatusRunning   TaskStatus = "running"
	TaskStatusCompleted TaskStatus = "completed"
	TaskStatusFailed    TaskStatus = "failed"
	TaskStatusStopped   TaskStatus = "stopped"
)

// TaskNotification tells that a background task ended. It is published
// on the parent's bus (addressed to no session), handed to the handlers
// of Options.OnTaskNotification, and returned by Task.Wait. It carries
// the child's text and what it spent — never its tool calls, their
// results or its intermediate turns, which stay in its transcript.
type TaskNotification struct {
	// Type is always "system" and Subtype "task_notification".
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	// UUID identifies the notification; SessionID is the session that
	// started the task, which the notification is for.
	UUID      string `json:"uuid"`
	SessionID string `json:"session_id"`
	// TaskID is the task's id, which is also its agent id.
	TaskID string     `json:"task_id"`
	Status TaskStatus `json:"status"`
	// OutputFile holds the task's output ("" when the engine keeps no
	// transcripts).
	OutputFile string `json:"output_file"`
	// Summary is the child's final text, or its partial text when it
	// failed or was stopped.
	Summary string `json:"summary"`
	// Error is why it failed, empty otherwise.
	Error string `json:"error,omitempty"`
	Usage Usage  `json:"usage"`
	// Duration is how long it ran.
	Duration time.Duration `json:"duration"`
}

// IsSuccess reports whether the task completed.
func (n TaskNotification) IsSuccess() bool { return n.Status == TaskStatusCompleted }

// Start runs a child in the background and returns at once with its
// task, whose id is the agent's. What would keep it from starting (an
// invalid spec, a cycle, the depth limit, the spawn budget, a failed
// setup, resuming an unknown agent) is returned now; everything later
// ends the task. The child counts against its run's limits like any
// child, and its context derives from the run's, not from ctx's: it
// outlives the tool call that started it, and ends, as stopped, when the
// run's context is cancelled (see WithRun; outside a run, ctx) or the
// task is stopped.
//
// When it ends, a TaskNotification is published and handled, and a
// runner.Inbound message with a <task-notification> block telling the
// model which task ended, how, and its result is dispatched to the parent
// session, with the task's runner.Spent record (Outcome.Spent):
// the parent's runner adds the message to its next model call (the next
// evaluation's, if the current one is over).
func (e *Engine) Start(ctx context.Context, spec Spec) (task *Task, err error) {
	defer func() {
		if p := recover(); p != nil {
			task, err = nil, &Error{Kind: ErrPanic, Msg: fmt.Sprintf("Subagent run aborted: panic: %v", p)}
		}
	}()
	c, cctx, err := e.prepare(ctx, spec)
	if err != nil {
		return nil, err
	}
	c.background = true
	runCtx := c.run.ctx
	bctx, cancel := context.WithCancelCause(context.WithoutCancel(cctx))
	stopWithRun := context.AfterFunc(runCtx, func() { cancel(context.Cause(runCtx)) })
	t := &Task{
		id: c.id, parentID: spec.Parent.ID(), cancel: cancel,
		settled: make(chan struct{}), delivered: make(chan struct{}), child: c.session,
		started: TaskStarted{TaskID: c.id, Name: spec.Name, Description: spec.Description, SessionID: c.session.ID()},
	}
	if e.transcripts != "" {
		_, t.outputFile = e.transcripts.Paths(c.root, c.id)
	}
	e.tasks.add(t)
	go func() {
		defer e.tasks.wg.Done()
		defer cancel(nil)
		defer stopWithRun()
		out, status, err := c.runSafely(bctx)
		e.settle(c, t, out, status, err)
	}()
	return t, nil
}

// runSafely executes the child, turning a panic into an error.
func (c *child) runSafely(ctx context.Context) (out *Outcome, status TaskStatus, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, status, err = nil, TaskStatusFailed, &Error{Kind: ErrPanic, Msg: fmt.Sprintf("Subagent run aborted: panic: %v", p)}
		}
	}()
	return c.execute(ctx)
}

// settle ends a task: it tells the parent session and the observers, and
// makes the task's status final.
func (e *Engine) settle(c *child, t *Task, out *Outcome, status TaskStatus, err error) {
	n := TaskNotification{
		Type: "system", Subtype: "task_notification", UUID: e.newID(), SessionID: t.parentID,
		TaskID: t.id, Status: status, OutputFile: t.outputFile,
	}
	if out != nil {
		n.Summary, n.Usage, n.Duration = out.Text, out.Usage, out.Duration
	}
	if err != nil && status == TaskStatusFailed {
		n.Error = plainError(err)
	}
	ctx := context.Background()
	events := []any{runner.Inbound{Source: "task", Text: notificationText(c.spec, n)}}
	if out != nil {
		events = append(events, out.Spent())
	}
	if derr := c.spec.Parent.Dispatch(ctx, events...); derr != nil {
		e.log().Warn("subagent: a task notification could not reach its session", "task_id", t.id, "session", t.parentID, "error", derr)
	}
	t.mu.Lock()
	t.note, t.child = n, nil
	t.mu.Unlock()
	close(t.settled)
	e.tasks.finished(t)
	if bus.Observed[TaskNotification](c.spec.Parent.Bus()) {
		publish(ctx, c.spec.Parent, n)
	}
	for _, h := range e.notify {
		func() {
			defer func() {
				if p := recover(); p != nil {
					e.log().Error("subagent: a task notification handler panicked", "task_id", t.id, "panic", p)
				}
			}()
			h(ctx, n)
		}()
	}
	close(t.delivered)
}

// plainError is err's text as a model reads it: a failed evaluation's
// cause, without the runner's account of where it failed.
func plainError(err error) string {
	var ee *runner.EvaluationError
	if errors.Is(err, ErrRun) && errors.As(err, &ee) && ee.Err != nil {
		return ee.Err.Error()
	}
	return err.Error()
}

// Task is a child running in the background, started with Engine.Start
// and found again with Manager.Get. Its methods are safe for concurrent
// use.
type Task struct {
	id, parentID, outputFile string
	started                  TaskStarted
	cancel                   context.CancelCauseFunc
	seq                      uint64        // the order it started in, among the manager's tasks
	settled                  chan struct{} // closed once the status is final
	delivered                chan struct{} // closed once observers and handlers have the notification

	mu    sync.Mutex
	child *session.Session // while it runs
	note  TaskNotification // once settled
}

// ID returns the task's id, which is also the agent's.
func (t *Task) ID() string { return t.id }

// ParentID returns the id of the session that started the task.
func (t *Task) ParentID() string { return t.parentID }

// OutputFile returns the path of the file that holds the task's output
// ("" when the engine keeps no transcripts): the child's latest text as
// it runs, then its final or partial text and what it spent.
func (t *Task) OutputFile() string { return t.outputFile }

// Status returns TaskStatusRunning until the task ends, then how it
// ended.
func (t *Task) Status() TaskStatus {
	select {
	case <-t.settled:
		return t.note.Status
	default:
		return TaskStatusRunning
	}
}

// Summary returns the task's final text (partial if it failed or was
// stopped) once it has ended, "" before.
func (t *Task) Summary() string {
	select {
	case <-t.settled:
		return t.note.Summary
	default:
		return ""
	}
}

// ReadOutput returns the child's output: while it runs, the latest text
// it has written; once it has ended, its final (or partial) text. Tool
// calls and their results are never part of it.
func (t *Task) ReadOutput(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	t.mu.Lock()
	child, note := t.child, t.note
	t.mu.Unlock()
	if child == nil {
		return note.Summary, nil
	}
	msgs := session.Get[runner.ConversationMessage](child)
	for i := msgs.Len() - 1; i >= 0; i-- {
		if m := msgs.At(i); m.Role == model.RoleAssistant && m.Content != "" {
			return m.Content, nil
		}
	}
	return "", nil
}

// Wait waits until the task ends and its notification has reached the
// parent session, the observers and the handlers, and returns the
// notification; a notification handler must not Wait for the task it is
// told about (it has the notification already). When ctx's deadline
// passes first it returns an error matching ErrTaskTimeout (and
// context.DeadlineExceeded), and the task goes on; when ctx is cancelled,
// ctx's error.
func (t *Task) Wait(ctx context.Context) (TaskNotification, error) {
	select {
	case <-t.delivered:
		return t.note, nil
	default:
	}
	select {
	case <-t.delivered:
		return t.note, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return TaskNotification{}, taskTimeout(t.id, ctx.Err())
		}
		return TaskNotification{}, ctx.Err()
	}
}

// Stop ends the task as stopped, unless it has ended already, and returns
// once its status is final: its partial text is kept. The child's
// evaluation stops at once; a tool of the child's that ignores its
// context delays it.
func (t *Task) Stop() {
	t.cancel(errStopped)
	<-t.settled
}

var errStopped = errors.New("subagent: the task was stopped")

// Manager keeps an engine's background tasks (Engine.Tasks): the running
// ones, and the last maxFinishedTasks that ended, for their output.
type Manager struct {
	mu    sync.Mutex
	tasks map[string]*Task
	done  []*Task // ended tasks, oldest first
	seq   uint64  // tasks started so far
	wg    sync.WaitGroup
}

// maxFinishedTasks is how many ended tasks a Manager keeps.
const maxFinishedTasks = 1000

func newManager() *Manager { return &Manager{tasks: map[string]*Task{}} }

// Tasks returns the engine's background tasks.
func (e *Engine) Tasks() *Manager { return e.tasks }

// Get returns the task with the given id. An unknown id is
// ErrTaskNotFound, whose text is "No task found with ID: <id>".
func (m *Manager) Get(id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.tasks[id]; ok {
		return t, nil
	}
	return nil, taskNotFound(id)
}

// StopAll stops every running task and waits until all of them have
// ended, their notifications handled: for a program that shuts down.
func (m *Manager) StopAll() {
	m.mu.Lock()
	running := make([]*Task, 0, len(m.tasks))
	for _, t := range m.tasks {
		running = append(running, t)
	}
	m.mu.Unlock()
	for _, t := range running {
		t.cancel(errStopped)
	}
	m.wg.Wait()
}

// Running returns the tasks still running, in the order they started.
func (m *Manager) Running() []*Task {
	return m.where(func(t *Task) bool { return t.Status() == TaskStatusRunning })
}

// where returns the tasks for which keep is true, in the order they
// started.
func (m *Manager) where(keep func(*Task) bool) []*Task {
	m.mu.Lock()
	out := make([]*Task, 0, len(m.tasks))
	for _, t := range m.tasks {
		if keep(t) {
			out = append(out, t)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b *Task) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// Unreported returns the tasks whose notification has not been handed out
// to the observers and handlers yet, in the order they started: those
// running, and those that have just ended (their status final, Running
// leaves them out) and whose notification is on its way — what Wait
// waits for. A program that tells its user about the notifications asks
// it, rather than Running, whether there is anything to wait for.
func (m *Manager) Unreported() []*Task { return m.where(undelivered) }

// undelivered reports whether t's notification is not handed out yet.
func undelivered(t *Task) bool {
	select {
	case <-t.delivered:
		return false
	default:
		return true
	}
}

// Wait waits until no task is running — those started meanwhile
// included — and their notifications have been handed out: for a
// program that has its answer and lets its background tasks finish
// before it exits. When ctx ends first it returns Task.Wait's error, and
// the tasks go on.
func (m *Manager) Wait(ctx context.Context) error {
	for {
		pending := m.where(undelivered)
		if len(pending) == 0 {
			return nil
		}
		for _, t := range pending {
			if _, err := t.Wait(ctx); err != nil {
				return err
			}
		}
	}
}

func (m *Manager) add(t *Task) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	t.seq = m.seq
	m.tasks[t.id] = t
	m.wg.Add(1)
}

// finished notes that the task ended, forgetting the oldest ended tasks
// beyond maxFinishedTasks.
func (m *Manager) finished(t *Task) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done = append(m.done, t)
	for len(m.done) > maxFinishedTasks {
		if old := m.done[0]; m.tasks[old.id] == old {
			delete(m.tasks, old.id)
		}
		m.done[0] = nil
		m.done = m.done[1:]
	}
}
