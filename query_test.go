package offshoot_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/subagent"
)

// ids makes agent ids agent-1, agent-2, … (notifications take ids too).
func ids() subagent.Options {
	var n atomic.Int64
	return subagent.Options{NewID: func() string { return fmt.Sprintf("agent-%d", n.Add(1)) }}
}

// gate is a model turn that answers text once release is closed, or fails
// when its context ends first.
func gate(release <-chan struct{}, text string) scripted.Turn {
	return scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		select {
		case <-release:
			return &model.Response{Message: model.AssistantMessage(text)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

const watchInBackground = `{"subagent_type":"watcher","description":"Watch the build","prompt":"Watch the build.","run_in_background":true}`

// kinds lists the messages' types, consecutive text deltas as one.
func kinds(msgs []offshoot.Message) []string {
	var out []string
	for _, m := range msgs {
		k := m.MessageType()
		if k == "text_delta" && len(out) > 0 && out[len(out)-1] == k {
			continue
		}
		out = append(out, k)
	}
	return out
}

// Query yields every kind of message, in the order things happen: the
// text as it streams, each answer, each tool result, a background task's
// notification as it ends, and the result.
func TestQueryYieldsTheMessageKindsInOrder(t *testing.T) {
	release := make(chan struct{})
	m := scripted.New(
		scripted.When(scripted.SystemContains("You watch builds."), gate(release, "The build is green.")),
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Let me check.",
			model.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"file_path":"notes/todo.md"}`})}),
		scripted.ToolCall("Task", watchInBackground),
		scripted.ToolCall("TaskOutput", `{"task_id":"agent-1"}`),
		scripted.Text("The build is green, and the todo says review."),
	)
	c := newClient(t, m, offshoot.Options{Subagents: ids(), Files: map[string]string{"notes/todo.md": "- review\n"}})

	var msgs []offshoot.Message
	for msg := range c.Query(within(t), "How is the build?") {
		msgs = append(msgs, msg)
		if a, ok := msg.(offshoot.AssistantMessage); ok && a.Turn == 3 {
			close(release) // the watcher ends while TaskOutput waits for it
		}
	}
	assert.Equal(t, []string{
		"text_delta", "assistant", "tool_result", // Let me check. → read_file
		"assistant", "tool_result", // Task, in the background
		"assistant", "system", "tool_result", // TaskOutput, and the task notification, waiting for the task
		"text_delta", "assistant", "result",
	}, kinds(msgs))

	var deltas [5]strings.Builder
	var answers []offshoot.AssistantMessage
	var results []offshoot.ToolResultMessage
	var note offshoot.TaskNotificationMessage
	for _, msg := range msgs {
		switch m := msg.(type) {
		case offshoot.TextDelta:
			deltas[m.Turn].WriteString(m.Text)
		case offshoot.AssistantMessage:
			answers = append(answers, m)
		case offshoot.ToolResultMessage:
			results = append(results, m)
		case offshoot.TaskNotificationMessage:
			note = m
		}
	}
	require.Len(t, answers, 4)
	assert.Equal(t, "Let me check.", deltas[1].String())
	assert.Equal(t, answers[0].Text, deltas[1].String(), "the deltas make up the answer")
	assert.Equal(t, answers[3].Text, deltas[4].String())
	assert.Equal(t, "read_file", answers[0].ToolCalls[0].Name)
	assert.Equal(t, []int{1, 2, 3, 4}, []int{answers[0].Turn, answers[1].Turn, answers[2].Turn, answers[3].Turn})

	require.Len(t, results, 3)
	assert.Equal(t, offshoot.ToolResultMessage{CallID: "c1", Name: "read_file", Success: true, Summary: results[0].Summary}, results[0])
	assert.Equal(t, "Task", results[1].Name)
	assert.True(t, strings.HasPrefix(results[1].Summary, "Subagent (watcher, scripted) started in the background as task agent-1. "), results[1].Summary)
	assert.True(t, strings.HasSuffix(results[1].Summary, "…"), "cut")
	assert.Len(t, []rune(results[1].Summary), offshoot.MaxSummary)
	assert.Equal(t, "Task agent-1 has completed. Its result:", results[2].Summary, "the first line")

	assert.Equal(t, "agent-1", note.TaskID)
	assert.True(t, note.IsSuccess())
	assert.Equal(t, "The build is green.", note.Summary)
	assert.Equal(t, c.Session().ID(), note.SessionID)

	r := final(t, msgs)
	require.NoError(t, r.Err)
	assert.False(t, r.IsError())
	assert.Equal(t, "The build is green, and the todo says review.", r.Text)
	assert.Equal(t, 4, r.Turns)
	assert.Equal(t, 3, r.ToolCalls)
	assert.Positive(t, r.Usage.TotalTokens)
	assert.Positive(t, r.Duration)
}

// A task that ends between queries: the handler is told, and an empty
// prompt has the main agent read the notification and answer.
func TestANotificationBetweenQueries(t *testing.T) {
	release := make(chan struct{})
	m := scripted.New(
		scripted.When(scripted.SystemContains("You watch builds."), gate(release, "The build is green.")),
		scripted.ToolCall("Task", watchInBackground),
		scripted.Text("I started a watcher."),
		scripted.Text("The watcher says the build is green."),
	)
	told := make(chan offshoot.TaskNotificationMessage, 1)
	c := newClient(t, m, offshoot.Options{Subagents: ids(), OnTaskNotification: func(_ context.Context, n offshoot.TaskNotificationMessage) { told <- n }})

	first := collect(t, c, "Watch the build.")
	assert.Equal(t, "I started a watcher.", final(t, first).Text)
	assert.NotContains(t, kinds(first), "system")
	running := c.Tasks().Running()
	require.Len(t, running, 1, "the task goes on after the query")

	nothing := collect(t, c, "")
	require.Len(t, nothing, 1)
	assert.ErrorIs(t, final(t, nothing).Err, offshoot.ErrNothingToContinue)

	close(release)
	require.NoError(t, c.Tasks().Wait(within(t)))
	select {
	case n := <-told:
		assert.Equal(t, "agent-1", n.TaskID)
		assert.Equal(t, subagent.TaskStatusCompleted, n.Status)
	default:
		t.Fatal("the handler was not told")
	}

	next := collect(t, c, "")
	assert.Equal(t, "The watcher says the build is green.", final(t, next).Text)
	assert.Equal(t, []string{"text_delta", "assistant", "result"}, kinds(next), "the notification came between the queries")
	calls := m.Calls()
	req := calls[len(calls)-1].Request.Messages
	last := req[len(req)-1]
	assert.Equal(t, model.RoleUser, last.Role)
	assert.True(t, strings.HasPrefix(last.Content, "<task-notification>\nThe background task agent-1 (Watch the build, by the watcher agent) has completed."), last.Content)
	assert.Equal(t, model.AssistantMessage("I started a watcher."), req[len(req)-2], "the conversation goes on")
}

// Breaking out of the loop stops the query's evaluation at once; the
// background task it started goes on, and the client takes the next
// query.
func TestBreakingOutStopsTheQuery(t *testing.T) {
	entered, stopped := make(chan struct{}), make(chan struct{})
	m := scripted.New(
		scripted.When(scripted.SystemContains("You watch builds."), gate(make(chan struct{}), "never")),
		scripted.ToolCall("Task", watchInBackground),
		scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
			close(entered)
			<-ctx.Done()
			close(stopped)
			return nil, ctx.Err()
		}),
		scripted.Text("Here again."),
	)
	c := newClient(t, m, offshoot.Options{Subagents: ids()})
	for msg := range c.Query(within(t), "Watch the build.") {
		if _, ok := msg.(offshoot.ToolResultMessage); ok {
			// Break while the next model call is in flight.
			select {
			case <-entered:
			case <-time.After(10 * time.Second):
				t.Fatal("the main agent never made its next model call")
			}
			break
		}
	}
	select {
	case <-stopped:
	default:
		t.Fatal("Query returned before its evaluation stopped")
	}
	assert.Len(t, c.Tasks().Running(), 1, "the background task goes on")
	assert.Equal(t, "Here again.", final(t, collect(t, c, "Are you there?")).Text)
}

// Queries take turns; Close may be called from a query's loop, and stops
// it; a closed client answers every query with ErrClosed.
func TestBusyAndClosed(t *testing.T) {
	m := scripted.New(
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Working on it.",
			model.ToolCall{ID: "c1", Name: "ls", Arguments: `{}`})}),
		scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
	)
	c, err := offshoot.NewClient(offshoot.Options{Model: m})
	require.NoError(t, err)
	var last offshoot.ResultMessage
	for msg := range c.Query(within(t), "Work.") {
		switch msg := msg.(type) {
		case offshoot.AssistantMessage:
			busy := collect(t, c, "And this?")
			require.Len(t, busy, 1)
			assert.ErrorIs(t, final(t, busy).Err, offshoot.ErrBusy)
		case offshoot.ToolResultMessage:
			require.NoError(t, c.Close())
		case offshoot.ResultMessage:
			last = msg
		}
	}
	require.Error(t, last.Err, "the query stopped")
	closed := collect(t, c, "Still there?")
	assert.ErrorIs(t, final(t, closed).Err, offshoot.ErrClosed)
	assert.NoError(t, c.Close(), "Close is idempotent")
}

// Cancelling the context a query ran under stops the background tasks it
// started.
func TestCancellingTheQueryContextStopsItsTasks(t *testing.T) {
	m := scripted.New(
		scripted.When(scripted.SystemContains("You watch builds."), gate(make(chan struct{}), "never")),
		scripted.ToolCall("Task", watchInBackground),
		scripted.Text("Started."),
	)
	c := newClient(t, m, offshoot.Options{Subagents: ids()})
	run, cancel := context.WithCancel(within(t))
	defer cancel()
	for range c.Query(run, "Watch the build.") {
	}
	bg, err := c.Tasks().Get("agent-1")
	require.NoError(t, err)
	assert.Equal(t, subagent.TaskStatusRunning, bg.Status())
	cancel()
	n, err := bg.Wait(within(t))
	require.NoError(t, err)
	assert.Equal(t, subagent.TaskStatusStopped, n.Status)
}
