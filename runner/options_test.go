package runner_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools"
)

func offered(m *scripted.Model) []string {
	var names []string
	for _, spec := range m.Calls()[0].Request.Tools {
		names = append(names, spec.Name)
	}
	return names
}

func TestToolFilterAndRequestTools(t *testing.T) {
	echo := echoTool(t)
	sleep := sleepTool(t, nil, nil)

	m := scripted.New(scripted.Text("ok"))
	req := request(newPrompt(t, echo, sleep), newSession(t), m)
	req.ToolFilter = tools.Filter{Deny: []string{"sl*"}}
	_, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, []string{"echo"}, offered(m))

	// The request's tools come first; the same tool in both is offered once.
	inherited, err := tools.NewToolset(sleep, echo)
	require.NoError(t, err)
	m = scripted.New(scripted.Text("ok"))
	req = request(newPrompt(t, echo), newSession(t), m)
	req.Tools = inherited
	_, err = runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, []string{"sleep", "echo"}, offered(m))

	// A different tool of the same name is a clash.
	impostor, err := tools.New("echo", "Not the echo you know.", func(context.Context, *tools.Invocation, EchoParams) (tools.Result[string], error) {
		return tools.OK("", "x"), nil
	})
	require.NoError(t, err)
	req = request(newPrompt(t, impostor), newSession(t), scripted.New())
	req.Tools = inherited
	_, err = runner.Evaluate(ctx, req)
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseRender, ee.Phase)
	assert.ErrorContains(t, err, `tool "echo" clashes with an inherited tool`)

	req = request(newPrompt(t, echo), newSession(t), scripted.New())
	req.ToolFilter = tools.Filter{Allow: []string{"["}}
	_, err = runner.Evaluate(ctx, req)
	assert.ErrorContains(t, err, "malformed")
}

func TestToolsSeeTheirCaller(t *testing.T) {
	var inv tools.Invocation
	probe, err := tools.New("probe", "Reports its caller.", func(ctx context.Context, i *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		inv = *i
		return tools.OK("seen", ""), nil
	})
	require.NoError(t, err)
	m := scripted.New(scripted.ToolCall("probe", `{}`), scripted.Text("done"))
	s := newSession(t)
	req := request(newPrompt(t, probe), s, m)
	_, err = runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Same(t, m, inv.Model)
	assert.Equal(t, "scripted", inv.ModelName)
	assert.Same(t, s, inv.Session)
	assert.Equal(t, "test", inv.PromptNS)
	assert.Equal(t, "agent", inv.PromptKey)
	assert.Equal(t, []string{"probe"}, inv.Tools.Names())
	assert.NotEmpty(t, inv.CallID)
}

func TestMessagesContinueAConversation(t *testing.T) {
	m := scripted.New(scripted.Text("continued"))
	req := request(newPrompt(t), newSession(t), m)
	req.Messages = []model.Message{model.UserMessage("earlier question"), model.AssistantMessage("earlier answer")}
	req.UserMessage = "next question"
	_, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)
	msgs := m.Calls()[0].Request.Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, "earlier question", msgs[1].Content)
	assert.Equal(t, "next question", msgs[3].Content)
}

func TestLogObserver(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	s := newSession(t)
	stop := runner.LogObserver(s.Bus(), slog.New(slog.NewTextHandler(lockedWriter{&buf, &mu}, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	m := scripted.New(scripted.ToolCall("echo", `{"text":"fail"}`), scripted.Text("done"))
	_, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	stop()
	_, err = runner.Evaluate(ctx, request(newPrompt(t), s, scripted.New(scripted.Text("unlogged"))))
	require.NoError(t, err)
	out := buf.String()
	assert.Contains(t, out, `level=INFO msg="prompt rendered"`)
	assert.Contains(t, out, `msg="model called"`)
	assert.Contains(t, out, "model=scripted route=scripted turn=1")
	assert.Contains(t, out, `level=WARN msg="tool invoked"`)
	assert.Contains(t, out, "tool=echo")
	assert.Contains(t, out, `msg="prompt executed"`)
	assert.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("prompt executed")), "nothing is logged after stop")
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestCassetteRecordedFromAnEvaluationReplaysIdentically(t *testing.T) {
	script := func() *scripted.Model {
		return scripted.New(
			scripted.When(scripted.SystemContains("alpha"), scripted.ToolCall("echo", `{"text":"a"}`), scripted.Text("alpha done")),
			scripted.When(scripted.SystemContains("beta"), scripted.ToolCall("echo", `{"text":"b"}`), scripted.Text("beta done")),
		)
	}
	evaluate := func(m model.Model, goal string) *runner.Response {
		req := request(newPrompt(t, echoTool(t)), newSession(t), m)
		req.Params = []any{Task{Goal: goal}}
		resp, err := runner.Evaluate(ctx, req)
		require.NoError(t, err)
		return resp
	}
	var cassette bytes.Buffer
	rec := scripted.Record(script(), &cassette)
	want := map[string]*runner.Response{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, goal := range []string{"alpha", "beta"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := evaluate(rec, goal)
			mu.Lock()
			want[goal] = resp
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.NoError(t, rec.Close())

	replay, err := scripted.Replay(bytes.NewReader(cassette.Bytes()))
	require.NoError(t, err)
	for _, goal := range []string{"beta", "alpha"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := evaluate(replay, goal)
			assert.Equal(t, want[goal].Text, got.Text)
			assert.Equal(t, want[goal].Messages, got.Messages)
			assert.Equal(t, want[goal].Usage, got.Usage)
		}()
	}
	wg.Wait()
}

func TestRecordsHaveStableNamesInSnapshotJSON(t *testing.T) {
	s := newSession(t)
	_, err := runner.Evaluate(ctx, request(newPrompt(t), s, scripted.New(scripted.Text("ok"))))
	require.NoError(t, err)
	data, err := session.MarshalSnapshot(s.Snapshot(), s.Registry())
	require.NoError(t, err)
	for _, name := range []string{"offshoot.runner.PromptRendered", "offshoot.runner.ModelCalled", "offshoot.runner.PromptExecuted", "offshoot.runner.InboundRead"} {
		assert.Contains(t, string(data), `"slice_type":"`+name+`"`)
	}
	_, ok := s.Registry().Lookup("offshoot.runner.ToolInvoked")
	assert.True(t, ok, "the runner named its records in the session's registry when it installed its reducers")
	reg := serde.NewRegistry()
	require.NoError(t, runner.Reducers().Name(reg))
	_, ok = reg.Lookup("offshoot.runner.ConversationMessage")
	assert.True(t, ok, "and names them in a registry of a program's own")
	sessiontest.RoundTrip(t, s, s.Registry())
}

// seedBug is the event of a seed whose reducer panics.
type seedBug struct{}

// A reducer that panics while the toolset is installed (on its seed) fails
// the evaluation in the render phase, with the panic's value.
func TestAPanicIsReportedInThePhaseItHappenedIn(t *testing.T) {
	panicky := session.Reducers{Key: "panicky", Seed: []any{seedBug{}}, Rules: []session.Rule{
		session.On(func(session.ReducerContext, session.Slice[seedBug], seedBug) (session.Slice[seedBug], error) {
			panic("install bug")
		}),
	}}
	req := request(newPrompt(t, echoTool(t, tools.WithReducers(panicky))), newSession(t), scripted.New())
	_, err := runner.Evaluate(ctx, req)
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseRender, ee.Phase)
	assert.Contains(t, err.Error(), "install bug")
}

// Every model call carries the evaluation's cache key — its id unless the
// request names one — and tool calls see it, so that a fork carrying the
// conversation on can send the same.
func TestTheCacheKeyReachesTheModelAndTheTools(t *testing.T) {
	var seen string
	probe, err := tools.New("probe", "Reports the cache key.", func(_ context.Context, inv *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		seen = inv.CacheKey
		return tools.OK("seen", ""), nil
	})
	require.NoError(t, err)
	m := scripted.New(scripted.ToolCall("probe", `{}`), scripted.Text("done"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, probe), newSession(t), m))
	require.NoError(t, err)
	for _, c := range m.Calls() {
		assert.Equal(t, resp.Evaluation, c.Request.CacheKey)
	}
	assert.Equal(t, resp.Evaluation, seen)

	m = scripted.New(scripted.Text("done"))
	req := request(newPrompt(t), newSession(t), m)
	req.CacheKey = "the parent's"
	_, err = runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "the parent's", m.Calls()[0].Request.CacheKey)
}

// Messages that begin with a system message are the whole conversation so
// far: the model receives them as given, the prompt's text not added.
func TestMessagesWithASystemMessageAreTheWholeConversation(t *testing.T) {
	m := scripted.New(scripted.Text("carried on"))
	req := request(newPrompt(t, echoTool(t)), newSession(t), m)
	earlier := []model.Message{model.SystemMessage("The parent's system message."), model.UserMessage("earlier question"), model.AssistantMessage("earlier answer")}
	req.Messages = earlier
	resp, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, append(slices.Clone(earlier), model.UserMessage("go")), m.Calls()[0].Request.Messages)
	assert.Equal(t, []string{"echo"}, offered(m), "the prompt still gives the tools")
	assert.Equal(t, model.SystemMessage("The parent's system message."), runner.Conversation(req.Session.Snapshot(), resp.Evaluation)[0], "recorded as sent")
}
