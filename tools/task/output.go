package task

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// Bounds of TaskOutput's wait, in milliseconds.
const (
	// defaultOutputTimeout is how long TaskOutput waits for a task by
	// default.
	defaultOutputTimeout = 30_000
	// maxOutputTimeout is the longest a TaskOutput call may ask to wait.
	maxOutputTimeout = 600_000
)

// readWait bounds how long TaskOutput waits for an ended task's
// notification to be handed out, which follows its end at once unless a
// notification handler is slow.
const readWait = time.Second

// maxTaskID bounds a task_id, in bytes: task ids are agent ids.
const maxTaskID = 100

// What TaskOutput says of the output it retrieved.
const (
	// retrievalSuccess: the task has ended; Output is its final (or
	// partial) text.
	retrievalSuccess = "success"
	// retrievalTimeout: the task was still running when the wait ended.
	retrievalTimeout = "timeout"
	// retrievalNotReady: the call asked not to wait, and the task is
	// still running.
	retrievalNotReady = "not_ready"
)

const outputDescription = `Read the output of a task started in the background with Task (run_in_background). ` +
	`Give its task_id. By default the call waits for the task to end, up to timeout milliseconds (30000 unless you say, at most 600000); ` +
	`set block to false to look without waiting. You get the task's status and its text so far, or its result once it has ended. ` +
	`You do not need this to learn of a task's end: its result comes to you in a task notification.`

// outputInput is the input of TaskOutput.
type outputInput struct {
	// TaskID is the task's id, as Task's result gave it.
	TaskID string `json:"task_id" jsonschema:"The id of the task, as Task's result gave it" validate:"required"`
	// Block waits for the task to end (true by default).
	Block bool `json:"block,omitempty" jsonschema:"Wait for the task to end before answering; false looks at once"`
	// Timeout bounds the wait, in milliseconds (30000 by
	// default, at most 600000).
	Timeout int `json:"timeout,omitempty" jsonschema:"The longest to wait, in milliseconds (at most 600000)"`
}

// Validate checks the task id (one line of at most 100 bytes) and the
// timeout (0 to 600000 ms).
func (in *outputInput) Validate() error {
	if err := checkTaskID(in.TaskID); err != nil {
		return err
	}
	if in.Timeout < 0 || in.Timeout > maxOutputTimeout {
		return &serde.ValidationError{Path: "timeout", Reason: fmt.Sprintf("must be from 0 to %d milliseconds", maxOutputTimeout)}
	}
	return nil
}

// checkTaskID checks the task_id of a TaskOutput or TaskStop call.
func checkTaskID(id string) error {
	bad := func(reason string) error { return &serde.ValidationError{Path: "task_id", Reason: reason} }
	switch {
	case strings.TrimSpace(id) == "":
		return bad("is required: give the task_id Task's result gave")
	case len(id) > maxTaskID:
		return bad(fmt.Sprintf("must be at most %d characters", maxTaskID))
	case strings.ContainsAny(id, "\r\n"):
		return bad("must be one line")
	case !utf8.ValidString(id):
		return bad("must be UTF-8 text")
	}
	return nil
}

// outputResult is the value of a TaskOutput call, recorded with it; the
// model reads its text.
type outputResult struct {
	// RetrievalStatus is retrievalSuccess, retrievalTimeout or
	// retrievalNotReady.
	RetrievalStatus string `json:"retrieval_status"`
	TaskID          string `json:"task_id"`
	// Status is the task's: running, completed, failed or stopped.
	Status subagent.TaskStatus `json:"status"`
	// Output is the agent's text: its latest while it runs, its final (or
	// partial) text once it has ended. Never its tool calls or their
	// results.
	Output string `json:"output"`
	// Error is why the task failed, if it did.
	Error string `json:"error,omitempty"`
}

// outputTool returns the TaskOutput tool: it reads the output of a
// background task of engine started by the calling session, waiting for
// the task to end unless asked not to, at most 10 minutes. An id no
// task of the caller's has fails with "No task found with ID: X".
func outputTool(engine *subagent.Engine) (tools.Tool, error) {
	if engine == nil {
		return nil, errors.New("task: outputTool needs a subagent engine; create one with subagent.New")
	}
	return tools.New(OutputToolName, outputDescription, func(ctx context.Context, inv *tools.Invocation, in outputInput) (tools.Result[outputResult], error) {
		t, err := callersTask(engine, inv, in.TaskID)
		if err != nil {
			return tools.Failed[outputResult](err.Error()), nil
		}
		res := outputResult{RetrievalStatus: retrievalNotReady, TaskID: t.ID()}
		if in.Block {
			wctx, cancel := context.WithTimeout(ctx, time.Duration(in.Timeout)*time.Millisecond)
			_, err := t.Wait(wctx)
			cancel()
			res.RetrievalStatus = retrievalTimeout
			if err != nil && !errors.Is(err, subagent.ErrTaskTimeout) {
				return tools.Result[outputResult]{}, err
			}
		}
		// What the task has to say is read even when the call's own
		// deadline ended the wait.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readWait)
		defer cancel()
		res.Status = t.Status()
		if res.Status != subagent.TaskStatusRunning {
			res.RetrievalStatus = retrievalSuccess
			if n, err := t.Wait(rctx); err == nil {
				res.Error = n.Error
			}
		}
		if res.Output, err = t.ReadOutput(rctx); err != nil {
			return tools.Result[outputResult]{}, err
		}
		return tools.OK(res.text(in.Timeout), res), nil
	}, tools.WithDefaults(outputInput{Block: true, Timeout: defaultOutputTimeout}), tools.ConcurrentSafe(), tools.ExcludeValue())
}

// callersTask returns the background task id of the session inv runs
// on: a task another session started is no more found than one that does
// not exist.
func callersTask(engine *subagent.Engine, inv *tools.Invocation, id string) (*subagent.Task, error) {
	t, err := engine.Tasks().Get(id)
	if err != nil {
		return nil, err
	}
	if inv == nil || inv.Session == nil || t.ParentID() != inv.Session.ID() {
		return nil, fmt.Errorf("No task found with ID: %s", id)
	}
	return t, nil
}

// text is what the model reads of r; waited is how long the call waited,
// in milliseconds.
func (r outputResult) text(waited int) string {
	var b strings.Builder
	switch r.RetrievalStatus {
	case retrievalNotReady:
		fmt.Fprintf(&b, "Task %s is still running.", r.TaskID)
	case retrievalTimeout:
		fmt.Fprintf(&b, "Task %s is still running after a wait of %s.", r.TaskID, seconds(waited))
	default:
		fmt.Fprintf(&b, "Task %s %s", r.TaskID, endedText(r.Status, r.Error))
	}
	out := strings.TrimSpace(r.Output)
	switch {
	case out == "" && r.Status == subagent.TaskStatusRunning:
		b.WriteString(" It has written nothing yet.")
	case out == "":
		b.WriteString(" It wrote no result.")
	case r.Status == subagent.TaskStatusRunning:
		b.WriteString(" Its output so far:\n\n" + out)
	case r.Status == subagent.TaskStatusCompleted:
		b.WriteString(" Its result:\n\n" + out)
	default:
		b.WriteString(" What it wrote before it ended:\n\n" + out)
	}
	return b.String()
}

// endedText says how a task ended.
func endedText(status subagent.TaskStatus, errText string) string {
	switch status {
	case subagent.TaskStatusCompleted:
		return "has completed."
	case subagent.TaskStatusStopped:
		return "was stopped before it finished."
	}
	if errText = strings.TrimSuffix(strings.Join(strings.Fields(errText), " "), "."); errText != "" {
		return "failed: " + errText + "."
	}
	return "failed."
}

// seconds says a time in milliseconds in seconds: "30 seconds", "0.5
// seconds", "1 second".
func seconds(ms int) string {
	if ms == 1000 {
		return "1 second"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " seconds"
}
