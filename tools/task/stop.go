package task

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

const stopDescription = `Stop a task started in the background with Task (run_in_background), by its task_id. ` +
	`The agent stops at once; what it wrote so far is kept and given back to you.`

// stopWait bounds how long TaskStop waits for a task to end once told to
// stop: a tool of the agent's that ignores its context delays the end.
const stopWait = 30 * time.Second

// stopInput is the input of TaskStop.
type stopInput struct {
	// TaskID is the task's id, as Task's result gave it.
	TaskID string `json:"task_id" jsonschema:"The id of the task to stop, as Task's result gave it" validate:"required"`
}

// Validate checks the task id: one line of at most 100 bytes.
func (in *stopInput) Validate() error { return checkTaskID(in.TaskID) }

// stopResult is the value of a TaskStop call, recorded with it; the model
// reads its text.
type stopResult struct {
	TaskID string `json:"task_id"`
	// Status is the task's after the call: stopped, or how it had ended
	// already (completed, failed); running if it is still ending.
	Status subagent.TaskStatus `json:"status"`
	// Stopped is true when this call stopped it.
	Stopped bool `json:"stopped"`
	// Output is the agent's text: what it wrote before it stopped, or its
	// result if it had ended already.
	Output string `json:"output"`
}

// stopTool returns the TaskStop tool: it stops a background task of engine
// started by the calling session, keeping the agent's partial text, and
// answers with it. A task that has ended already is left as it is, and
// the answer says how it ended. An id no task of the caller's has fails
// with "No task found with ID: X".
func stopTool(engine *subagent.Engine) (tools.Tool, error) {
	if engine == nil {
		return nil, errors.New("task: stopTool needs a subagent engine; create one with subagent.New")
	}
	return tools.New(StopToolName, stopDescription, func(ctx context.Context, inv *tools.Invocation, in stopInput) (tools.Result[stopResult], error) {
		t, err := callersTask(engine, inv, in.TaskID)
		if err != nil {
			return tools.Failed[stopResult](err.Error()), nil
		}
		res := stopResult{TaskID: t.ID()}
		if running := t.Status() == subagent.TaskStatusRunning; running {
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				t.Stop()
			}()
			wait := time.NewTimer(stopWait)
			select {
			case <-stopped:
			case <-wait.C:
			case <-ctx.Done():
			}
			wait.Stop()
			res.Stopped = t.Status() == subagent.TaskStatusStopped
		}
		res.Status = t.Status()
		if res.Output, err = t.ReadOutput(context.WithoutCancel(ctx)); err != nil {
			return tools.Result[stopResult]{}, err
		}
		return tools.OK(res.text(), res), nil
	}, tools.ConcurrentSafe(), tools.ExcludeValue())
}

// text is what the model reads of r.
func (r stopResult) text() string {
	var b strings.Builder
	switch {
	case r.Status == subagent.TaskStatusRunning:
		fmt.Fprintf(&b, "Task %s was told to stop and is still ending; its result will come in a task notification.", r.TaskID)
	case r.Stopped:
		fmt.Fprintf(&b, "Task %s was stopped.", r.TaskID)
	default:
		fmt.Fprintf(&b, "Task %s had ended already, so nothing was stopped: it %s", r.TaskID, strings.TrimPrefix(endedText(r.Status, ""), "has "))
	}
	out := strings.TrimSpace(r.Output)
	switch {
	case r.Status == subagent.TaskStatusRunning:
	case out == "":
		b.WriteString(" It wrote no result.")
	case r.Stopped:
		b.WriteString(" What it wrote before it stopped:\n\n" + out)
	default:
		b.WriteString(" Its output:\n\n" + out)
	}
	return b.String()
}
