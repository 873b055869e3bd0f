package compare

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// offshoot runs through runner.Evaluate with a model.Func; the hand-off is
// the dispatch_subagent tool (tools/promptsubagent): snapshot the parent,
// fork a child, render the registry prompt, run it, close the child. The
// child receives the parent's state, not its messages.

// The dispatch_subagent call every offshoot parent makes.
const offshootDispatchArgs = `{"mode":"ad_hoc","prompt_ns":"agents","prompt_key":"worker","instructions":"` + delegateRequest + `"}`

func offshootEcho(tb testing.TB, r *rig) tools.Tool {
	return must(tools.New(echoName, "Echo the text back.",
		func(_ context.Context, _ *tools.Invocation, p echoParams) (tools.Result[echoResult], error) {
			r.echoes.Add(1)
			return tools.OK("echoed", echoResult{Echo: p.Text}), nil
		}))(tb)
}

// offshootModel is the fake: a shallow copy of call for the script's tool
// turns, of final after them.
func offshootModel(sc *script, call, final *model.Response) model.Model {
	return model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		r := *final
		if sc.toolTurn() {
			r = *call
		}
		return &r, nil
	})
}

func offshootResponse(calls ...model.ToolCall) *model.Response {
	text := ""
	if len(calls) == 0 {
		text = finalAnswer
	}
	return &model.Response{Message: model.AssistantMessage(text, calls...), Usage: model.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}
}

func offshootLoop(tb testing.TB, k int) *rig {
	r := &rig{}
	p := must(prompt.New("bench", "agent", prompt.Markdown[prompt.NoParams]("Task", parentPrompt, prompt.WithTools(offshootEcho(tb, r)))))(tb)
	sc := &script{calls: int64(k)}
	m := offshootModel(sc, offshootResponse(model.ToolCall{ID: "c", Name: echoName, Arguments: echoArgs}), offshootResponse())
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		s, err := session.New()
		if err != nil {
			return "", err
		}
		defer s.Close()
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: userMessage, MaxTurns: k + 1})
		if err != nil {
			return "", err
		}
		return resp.Text, nil
	}
	return r
}

// offshootParent returns the parent prompt (echo and dispatch_subagent) and
// a session holding n events.
func offshootParent(tb testing.TB, r *rig, n int, child model.Model, concurrent int) (*prompt.Prompt, *session.Session) {
	reg := prompt.NewRegistry()
	worker := must(prompt.New("agents", "worker", prompt.Markdown[prompt.NoParams]("Worker", childPrompt)))(tb)
	if err := reg.Register(worker); err != nil {
		tb.Fatal(err)
	}
	engine := subagent.New(subagent.Options{MaxSpawns: 1 << 30, MaxConcurrent: concurrent})
	dispatch := must(promptsubagent.Tool(reg, engine, promptsubagent.Options{
		Model:     child,
		ModelName: "child",
		ChildSetup: func(c *session.Session) error {
			r.childSaw.Store(int64(session.Len[parentEvent](c)))
			return nil
		},
	}))(tb)
	p := must(prompt.New("bench", "lead", prompt.Markdown[prompt.NoParams]("Lead", parentPrompt, prompt.WithTools(offshootEcho(tb, r), dispatch))))(tb)
	return p, offshootParentSession(tb, n)
}

// offshootParentSession returns a session holding n parent events,
// dispatched the way an application records them.
func offshootParentSession(tb testing.TB, n int) *session.Session {
	s := must(session.New())(tb)
	tb.Cleanup(func() { _ = s.Close() })
	if err := session.Register(s, session.AppendAll[parentEvent]); err != nil {
		tb.Fatal(err)
	}
	evs := events(n)
	batch := make([]any, len(evs))
	for i, e := range evs {
		batch[i] = e
	}
	if err := s.Dispatch(context.Background(), batch...); err != nil {
		tb.Fatal(err)
	}
	return s
}

func offshootHandoff(tb testing.TB, n int, handoff bool) *rig {
	r := &rig{}
	final := offshootResponse()
	child := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		r.children.Add(1)
		c := *final
		return &c, nil
	})
	p, s := offshootParent(tb, r, n, child, 0)
	call := model.ToolCall{ID: "c", Name: promptsubagent.ToolName, Arguments: offshootDispatchArgs}
	if !handoff {
		call = model.ToolCall{ID: "c", Name: echoName, Arguments: echoArgs}
	}
	sc := &script{calls: 1}
	m := offshootModel(sc, offshootResponse(call), final)
	snap := s.Snapshot()
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		// Each run starts from the same parent: the evaluation's records
		// are rolled away (O(1)), in the control as in the hand-off.
		defer func() { _ = s.Rollback(snap) }()
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: userMessage, MaxTurns: 2})
		if err != nil {
			return "", err
		}
		if err := offshootToolFailed(s); err != nil {
			return "", err
		}
		return resp.Text, nil
	}
	return r
}

// offshootToolFailed returns an error when the run's last tool call did not
// succeed: a failed hand-off must not pass for a fast one.
func offshootToolFailed(s *session.Session) error {
	ti, ok := session.Latest[runner.ToolInvoked](s)
	if !ok {
		return fmt.Errorf("offshoot: the parent called no tool")
	}
	if !ti.Success {
		return fmt.Errorf("offshoot: %s failed: %s", ti.Name, ti.Result)
	}
	return nil
}

func offshootScale(tb testing.TB, n, children int) scaleRun {
	r := &rig{}
	var bar *barrier
	final := offshootResponse()
	child := model.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		if err := bar.wait(ctx); err != nil {
			return nil, err
		}
		c := *final
		return &c, nil
	})
	p, s := offshootParent(tb, r, n, child, children)
	calls := make([]model.ToolCall, children)
	for i := range calls {
		calls[i] = model.ToolCall{ID: fmt.Sprintf("c%d", i), Name: promptsubagent.ToolName, Arguments: offshootDispatchArgs}
	}
	sc := &script{calls: 1}
	m := offshootModel(sc, offshootResponse(calls...), final)
	snap := s.Snapshot()
	return func(ctx context.Context, b *barrier) error {
		bar = b
		sc.reset()
		defer func() { _ = s.Rollback(snap) }()
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: userMessage, MaxTurns: 2})
		if err != nil {
			return err
		}
		if failed := countFailed(s); failed > 0 {
			return fmt.Errorf("offshoot: %d of %d dispatches failed", failed, children)
		}
		if !strings.Contains(resp.Text, finalAnswer) {
			return fmt.Errorf("offshoot: the parent answered %q", resp.Text)
		}
		return nil
	}
}

func countFailed(s *session.Session) int {
	failed := 0
	for ti := range session.All[runner.ToolInvoked](s) {
		if !ti.Success {
			failed++
		}
	}
	return failed
}
