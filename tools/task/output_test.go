package task_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// working is a reader agent's script that writes "Reading the code." with
// a call of read_file, then waits for release before answering.
func working(release <-chan struct{}) []scripted.Turn {
	return []scripted.Turn{
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Reading the code.",
			model.ToolCall{ID: "r1", Name: "read_file", Arguments: `{"file_path":"src/login.go"}`})}),
		gate(release, "Login is in src/login.go."),
	}
}

// launch starts a reader in the background and returns its task, once the
// agent has written its first text.
func launch(t *testing.T, w *world) *subagent.Task {
	t.Helper()
	res := result(t, w.call(t, w.main, bgInput("reader", "Find the login code", "Where is Login?")))
	require.Equal(t, "async_launched", res.Data.Status, res.Text)
	bg, err := w.engine.Tasks().Get(res.Data.TaskID)
	require.NoError(t, err)
	c := within(t)
	for {
		if out, _ := bg.ReadOutput(c); out != "" {
			return bg
		}
		select {
		case <-c.Done():
			t.Fatal("the agent never wrote")
		default:
		}
	}
}

func outputResult(t *testing.T, out tools.Outcome) task.OutputResult {
	t.Helper()
	require.NoError(t, out.Err, out.Text)
	res, ok := out.Value.(task.OutputResult)
	require.True(t, ok, "value %T", out.Value)
	return res
}

// TaskOutput: not_ready when asked not to wait, timeout when a wait ends
// first, success once the task has ended — with the agent's text only.
func TestTaskOutputNotReadyTimeoutSuccess(t *testing.T) {
	release := make(chan struct{})
	w := newWorld(t, worldConfig{light: working(release)})
	bg := launch(t, w)

	out := w.callTool(t, w.s, task.OutputToolName, map[string]any{"task_id": bg.ID(), "block": false})
	assert.True(t, out.Success)
	assert.Equal(t, "Task agent-1 is still running. Its output so far:\n\nReading the code.", out.Text)
	assert.Equal(t, task.OutputResult{RetrievalStatus: task.RetrievalNotReady, TaskID: "agent-1", Status: subagent.TaskStatusRunning, Output: "Reading the code."},
		outputResult(t, out))

	out = w.callTool(t, w.s, task.OutputToolName, map[string]any{"task_id": bg.ID(), "timeout": 20})
	assert.Equal(t, "Task agent-1 is still running after a wait of 0.02 seconds. Its output so far:\n\nReading the code.", out.Text)
	assert.Equal(t, task.RetrievalTimeout, outputResult(t, out).RetrievalStatus)

	close(release)
	out = w.callTool(t, w.s, task.OutputToolName, map[string]any{"task_id": bg.ID()}) // blocks, 30 s at most
	assert.True(t, out.Success)
	assert.Equal(t, "Task agent-1 has completed. Its result:\n\nLogin is in src/login.go.", out.Text)
	assert.Equal(t, task.OutputResult{RetrievalStatus: task.RetrievalSuccess, TaskID: "agent-1", Status: subagent.TaskStatusCompleted, Output: "Login is in src/login.go."},
		outputResult(t, out))
	assert.NotContains(t, out.Text, "package src", "never the agent's tool results")

	// Asked again without waiting, an ended task is a success.
	out = w.callTool(t, w.s, task.OutputToolName, map[string]any{"task_id": bg.ID(), "block": false})
	assert.Equal(t, task.RetrievalSuccess, outputResult(t, out).RetrievalStatus)
}

// A failed task's output says why it failed, and what it wrote before.
func TestTaskOutputOfAFailedTask(t *testing.T) {
	w := newWorld(t, worldConfig{light: []scripted.Turn{
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Reading the code.",
			model.ToolCall{ID: "r1", Name: "read_file", Arguments: `{"file_path":"src/login.go"}`})}),
		scripted.Fail(errors.New("the provider is down")),
	}})
	res := result(t, w.call(t, w.main, bgInput("reader", "Find the login code", "Where is Login?")))
	out := w.callTool(t, w.s, task.OutputToolName, map[string]any{"task_id": res.Data.TaskID})
	got := outputResult(t, out)
	assert.Equal(t, subagent.TaskStatusFailed, got.Status)
	assert.Equal(t, task.RetrievalSuccess, got.RetrievalStatus)
	assert.Equal(t, "the provider is down", got.Error)
	assert.Equal(t, "Task agent-1 failed: the provider is down. What it wrote before it ended:\n\nReading the code.", out.Text)
}

// TaskStop ends a running task as stopped and gives back what it wrote;
// a task that ended already is left as it is.
func TestTaskStop(t *testing.T) {
	w := newWorld(t, worldConfig{light: working(make(chan struct{}))})
	bg := launch(t, w)

	out := w.callTool(t, w.s, task.StopToolName, map[string]any{"task_id": bg.ID()})
	require.NoError(t, out.Err)
	assert.True(t, out.Success)
	assert.Equal(t, "Task agent-1 was stopped. What it wrote before it stopped:\n\nReading the code.", out.Text)
	assert.Equal(t, task.StopResult{TaskID: "agent-1", Status: subagent.TaskStatusStopped, Stopped: true, Output: "Reading the code."}, out.Value)
	assert.Equal(t, subagent.TaskStatusStopped, bg.Status())

	got := outputResult(t, w.callTool(t, w.s, task.OutputToolName, map[string]any{"task_id": bg.ID()}))
	assert.Equal(t, task.OutputResult{RetrievalStatus: task.RetrievalSuccess, TaskID: "agent-1", Status: subagent.TaskStatusStopped, Output: "Reading the code."}, got,
		"its partial output is kept")

	out = w.callTool(t, w.s, task.StopToolName, map[string]any{"task_id": bg.ID()})
	assert.True(t, out.Success)
	assert.Equal(t, "Task agent-1 had ended already, so nothing was stopped: it was stopped before it finished. Its output:\n\nReading the code.", out.Text)
	assert.False(t, out.Value.(task.StopResult).Stopped)
}

// An id no task of the caller's has: the exact text, for TaskOutput and
// TaskStop alike — also a task another session started.
func TestUnknownTaskID(t *testing.T) {
	w := newWorld(t, worldConfig{light: []scripted.Turn{scripted.Text("done")}})
	res := result(t, w.call(t, w.main, bgInput("reader", "Find the login code", "Where is Login?")))
	bg, err := w.engine.Tasks().Get(res.Data.TaskID)
	require.NoError(t, err)
	_, err = bg.Wait(within(t))
	require.NoError(t, err)

	other, err := session.New()
	require.NoError(t, err)
	defer other.Close()
	for _, tool := range []string{task.OutputToolName, task.StopToolName} {
		for _, c := range []struct {
			s  *session.Session
			id string
		}{{w.s, "agent-99"}, {other, bg.ID()}} {
			out := w.callTool(t, c.s, tool, map[string]any{"task_id": c.id})
			require.NoError(t, out.Err)
			assert.False(t, out.Success)
			assert.Equal(t, "No task found with ID: "+c.id, out.Text, tool)
		}
	}
}

// Invalid input names the field; a model cannot ask for a wait past the
// limit.
func TestTaskOutputAndStopValidation(t *testing.T) {
	w := newWorld(t, worldConfig{})
	tests := []struct {
		tool string
		in   any
		want string
	}{
		{task.OutputToolName, map[string]any{"task_id": "agent-1", "timeout": 600001}, "Tool validation failed: TaskOutput: timeout: must be from 0 to 600000 milliseconds"},
		{task.OutputToolName, map[string]any{"task_id": "agent-1", "timeout": -1}, "Tool validation failed: TaskOutput: timeout: must be from 0 to 600000 milliseconds"},
		{task.OutputToolName, map[string]any{"block": true}, "Tool validation failed: TaskOutput: task_id: is required"},
		{task.OutputToolName, map[string]any{"task_id": "  "}, "Tool validation failed: TaskOutput: task_id: is required: give the task_id Task's result gave"},
		{task.OutputToolName, map[string]any{"task_id": "a\nb"}, "Tool validation failed: TaskOutput: task_id: must be one line"},
		{task.StopToolName, map[string]any{"task_id": string(make([]byte, 101))}, "Tool validation failed: TaskStop: task_id: must be at most 100 characters"},
		{task.StopToolName, map[string]any{"task_id": "agent-1", "now": true}, "Tool validation failed: TaskStop: now: unknown field; allowed: task_id"},
	}
	for _, tt := range tests {
		out := w.callTool(t, w.s, tt.tool, tt.in)
		var ve *tools.ValidationError
		require.ErrorAs(t, out.Err, &ve, tt.want)
		assert.Equal(t, tt.want, out.Text)
	}
}
