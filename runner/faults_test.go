package runner_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// handmade is a tool written by hand, not built with tools.New: its Call
// does whatever fault says, outside any recover of the tools package.
type handmade struct {
	name     string
	parallel bool
	fault    func() tools.Outcome
}

func (h handmade) Spec() tools.Spec {
	return tools.Spec{Name: h.name, Description: "A hand-written tool.", Params: json.RawMessage(`{"type":"object"}`),
		Result: json.RawMessage(`{}`), ConcurrentSafe: h.parallel}
}

func (h handmade) Call(context.Context, *tools.Invocation, json.RawMessage) tools.Outcome {
	return h.fault()
}

// faultyTyped is a typed tool whose handler does what its "do" argument
// says.
type FaultParams struct {
	Do string `json:"do"`
}

func faultyTyped(t testing.TB, name string, parallel bool) tools.Tool {
	t.Helper()
	var opts []tools.Option
	if parallel {
		opts = append(opts, tools.ConcurrentSafe())
	}
	tool, err := tools.New(name, "A typed tool that misbehaves on request.", func(_ context.Context, _ *tools.Invocation, p FaultParams) (tools.Result[string], error) {
		switch p.Do {
		case "panic":
			panic("typed exploded")
		case "goexit":
			runtime.Goexit()
		case "nil event":
			return tools.OK("ok", "value").WithEvents(Echoed{"before"}, nil), nil
		}
		return tools.OK("ok", p.Do).WithEvents(Echoed{p.Do}), nil
	}, opts...)
	require.NoError(t, err)
	return tool
}

func okOutcome(text string) func() tools.Outcome {
	return func() tools.Outcome {
		return tools.Outcome{Text: text, Success: true, Events: []any{Echoed{text}}}
	}
}

// A panic or a nil event in any tool — typed or hand-written, alone or in
// a parallel group — becomes that call's failed result naming the tool; every call id gets its answer, in order; the
// other calls' results and events stand, and the evaluation goes on.
func TestToolFaultsStayInsideTheCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []tools.Tool
		calls []model.ToolCall
		want  []string // per call: the start of its tool message
		kept  []Echoed // the events applied
	}{
		{"a hand-written tool panics in a parallel group",
			[]tools.Tool{handmade{"bad", true, func() tools.Outcome { panic("handmade exploded") }}, handmade{"good", true, okOutcome("fine")}},
			[]model.ToolCall{{ID: "c1", Name: "good"}, {ID: "c2", Name: "bad"}, {ID: "c3", Name: "good"}},
			[]string{"fine", "Tool 'bad' execution failed: panic: handmade exploded", "fine"},
			[]Echoed{{"fine"}, {"fine"}}},
		{"a hand-written tool panics alone",
			[]tools.Tool{handmade{"bad", false, func() tools.Outcome { panic("handmade exploded") }}},
			[]model.ToolCall{{ID: "c1", Name: "bad"}},
			[]string{"Tool 'bad' execution failed: panic: handmade exploded"},
			nil},
		{"a hand-written tool returns a nil event",
			[]tools.Tool{handmade{"bad", false, func() tools.Outcome { return tools.Outcome{Text: "ok", Success: true, Events: []any{Echoed{"x"}, nil}} }}, handmade{"good", false, okOutcome("fine")}},
			[]model.ToolCall{{ID: "c1", Name: "bad"}, {ID: "c2", Name: "good"}},
			[]string{"Tool 'bad' execution failed: its result holds a nil event (event 2 of 2); return only non-nil events", "fine"},
			[]Echoed{{"fine"}}},
		{"a typed tool panics in a parallel group",
			[]tools.Tool{faultyTyped(t, "typed", true)},
			[]model.ToolCall{{ID: "c1", Name: "typed", Arguments: `{"do":"panic"}`}, {ID: "c2", Name: "typed", Arguments: `{"do":"a"}`}},
			[]string{"Tool 'typed' execution failed: panic: typed exploded", "ok"},
			[]Echoed{{"a"}}},
		{"a typed tool returns a nil event",
			[]tools.Tool{faultyTyped(t, "typed", true)},
			[]model.ToolCall{{ID: "c1", Name: "typed", Arguments: `{"do":"nil event"}`}, {ID: "c2", Name: "typed", Arguments: `{"do":"a"}`}},
			[]string{"Tool 'typed' execution failed: its result holds a nil event (event 2 of 2)", "ok"},
			[]Echoed{{"a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			resp, err := evaluateWithin(t, s, tc.tools, tc.calls)
			require.NoError(t, err)
			require.NotNil(t, resp, "the evaluation's goroutine returned")
			assert.Equal(t, "carried on", resp.Text)

			var ids, texts []string
			for _, msg := range resp.Messages {
				if msg.Role == model.RoleTool {
					ids, texts = append(ids, msg.ToolCallID), append(texts, msg.Content)
				}
			}
			want := make([]string, len(tc.calls))
			for i, c := range tc.calls {
				want[i] = c.ID
			}
			assert.Equal(t, want, ids, "every call id is answered, in order")
			require.Len(t, texts, len(tc.want))
			for i, w := range tc.want {
				assert.True(t, strings.HasPrefix(texts[i], w), "call %d: %q does not start with %q", i, texts[i], w)
			}
			records := session.Get[runner.ToolInvoked](s).Values()
			require.Len(t, records, len(tc.calls))
			for i, rec := range records {
				assert.Equal(t, tc.calls[i].ID, rec.CallID)
				assert.Equal(t, !strings.HasPrefix(tc.want[i], "Tool '"), rec.Success, "call %d", i)
			}
			kept := session.Get[Echoed](s).Values()
			if len(tc.kept) == 0 {
				assert.Empty(t, kept, "only the events of the calls that succeeded")
			} else {
				assert.Equal(t, tc.kept, kept, "only the events of the calls that succeeded")
			}
		})
	}
}

// A tool must return: one that ends its goroutine (runtime.Goexit) —
// typed or hand-written, alone or in a parallel group — fails the
// evaluation with an error naming it, and the caller does not wait
// forever.
func TestAToolThatEndsItsGoroutineFailsTheEvaluation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []tools.Tool
		calls []model.ToolCall
		want  string
	}{
		{"a hand-written tool in a parallel group",
			[]tools.Tool{handmade{"bad", true, func() tools.Outcome { runtime.Goexit(); return tools.Outcome{} }}, handmade{"good", true, okOutcome("fine")}},
			[]model.ToolCall{{ID: "c1", Name: "bad"}, {ID: "c2", Name: "good"}}, `tool "bad" must return one`},
		{"a hand-written tool alone",
			[]tools.Tool{handmade{"bad", false, func() tools.Outcome { runtime.Goexit(); return tools.Outcome{} }}},
			[]model.ToolCall{{ID: "c1", Name: "bad"}}, `tool "bad" must return one`},
		{"a typed tool in a parallel group",
			[]tools.Tool{faultyTyped(t, "typed", true)},
			[]model.ToolCall{{ID: "c1", Name: "typed", Arguments: `{"do":"a"}`}, {ID: "c2", Name: "typed", Arguments: `{"do":"goexit"}`}}, `tool "typed" must return one`},
		{"a typed tool alone",
			[]tools.Tool{faultyTyped(t, "typed", false)},
			[]model.ToolCall{{ID: "c1", Name: "typed", Arguments: `{"do":"goexit"}`}, {ID: "c2", Name: "typed", Arguments: `{"do":"a"}`}}, `tool "typed" must return one`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := evaluateWithin(t, newSession(t), tc.tools, tc.calls)
			var ee *runner.EvaluationError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, runner.PhaseTool, ee.Phase)
			assert.ErrorContains(t, err, "ended its goroutine (runtime.Goexit) instead of returning a result: "+tc.want)
		})
	}
}

// evaluateWithin evaluates a turn of calls to tools, then "carried on", on
// s under a watchdog: a hang fails the test instead of the suite.
func evaluateWithin(t *testing.T, s *session.Session, ts []tools.Tool, calls []model.ToolCall) (resp *runner.Response, err error) {
	t.Helper()
	m := scripted.New(scripted.ToolCalls(calls...), scripted.Text("carried on"))
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		resp, err = runner.Evaluate(ctx, request(newPrompt(t, ts...), s, m))
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("the evaluation did not finish within 10 s")
	}
	return resp, err
}

// The name of an unknown tool is repeated to the model clipped.
func TestUnknownToolNameIsClipped(t *testing.T) {
	s := newSession(t)
	name := strings.Repeat("x", 1<<20)
	m := scripted.New(scripted.ToolCalls(model.ToolCall{ID: "c1", Name: name}), scripted.Text("done"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	text := lastToolMessage(t, resp)
	assert.Equal(t, "Unknown tool '"+strings.Repeat("x", 100)+"…'. Available tools: echo", text)
}

// A model that ends the loop's goroutine after a tool call (the loop then
// runs on a goroutine of its own) fails the evaluation; the caller does not
// wait forever.
func TestAModelThatEndsTheLoopsGoroutineFailsTheEvaluation(t *testing.T) {
	s := newSession(t)
	m := scripted.New(
		scripted.ToolCall("echo", `{"text":"x"}`),
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			runtime.Goexit()
			return nil, nil
		}))
	done := make(chan struct{})
	var err error
	var resp *runner.Response
	go func() {
		defer close(done)
		resp, err = runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Evaluate did not return")
	}
	require.Error(t, err)
	assert.ErrorContains(t, err, "runtime.Goexit")
	require.NotNil(t, resp)
	assert.Equal(t, 1, resp.ToolCalls, "the work before it is kept")
}

// A failed call's tool message says so (model.Message.Failed), for the
// providers that take the flag (Anthropic's is_error); a successful one
// does not.
func TestAFailedCallsToolMessageIsMarkedFailed(t *testing.T) {
	s := newSession(t)
	m := scripted.New(scripted.ToolCalls(model.ToolCall{ID: "c1", Name: "nope"}, model.ToolCall{ID: "c2", Name: "echo", Arguments: `{"text":"x"}`}), scripted.Text("done"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	failed := map[string]bool{}
	for _, msg := range resp.Messages {
		if msg.Role == model.RoleTool {
			failed[msg.ToolCallID] = msg.Failed
		}
	}
	assert.Equal(t, map[string]bool{"c1": true, "c2": false}, failed)
}
