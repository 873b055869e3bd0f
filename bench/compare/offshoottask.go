package compare

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// offshoot's second front end: the hand-off is the Task tool (tools/task)
// calling an agent defined in Go whose definition sets ForkContext, so the
// child carries on the parent's conversation as well as starting from its
// state. The parent's N events are session state, as in offshoot's
// dispatch_subagent row; the child runs on the child fake, which the
// definition names through a model.Router.

// The Task call every offshoot-task parent makes.
const offshootTaskArgs = `{"subagent_type":"` + delegateName + `","description":"Summarize the events","prompt":"` + delegateRequest + `"}`

// childModelName is the name the router gives the child fake.
const childModelName = "child"

// errNotForked is the child fake's answer to a request that does not carry
// its caller's conversation: the fork-context hand-off did not happen.
var errNotForked = errors.New("the child did not receive its caller's conversation; check the agent's forkContext")

// carriesConversation reports whether the child's request holds the
// parent's user message ahead of its own task.
func carriesConversation(req *model.Request) bool {
	for _, m := range req.Messages {
		if m.Role == model.RoleUser && m.Content == userMessage {
			return true
		}
	}
	return false
}

// offshootTaskParent returns the parent prompt (echo and Task) and a
// session holding n events. parent answers the parent's turns; child runs
// the agent, through a router that knows it as childModelName.
func offshootTaskParent(tb testing.TB, r *rig, n int, parent, child model.Model, concurrent int) (*prompt.Prompt, *session.Session) {
	router := must(model.NewStaticRouter(map[string]model.Model{model.Main: parent, childModelName: child}, nil))(tb)
	reg := agents.Load(agents.Options{
		NoBuiltins: true,
		ToolNames:  []string{echoName, task.ToolName},
		Router:     router,
		Agents: map[string]agents.Definition{delegateName: {
			Description: "Investigates one thing and reports.",
			Prompt:      childPrompt,
			Model:       childModelName,
			ForkContext: true,
		}},
	})
	for _, d := range append(reg.Errors(), reg.Warnings()...) {
		tb.Fatalf("agent definition: %v", d)
	}
	engine := subagent.New(subagent.Options{MaxSpawns: 1 << 30, MaxConcurrent: concurrent, ChildSetup: func(c *session.Session) error {
		r.childSaw.Store(int64(session.Len[parentEvent](c)))
		return nil
	}})
	taskTool := must(task.Tool(reg, engine, router, task.Options{}))(tb)
	p := must(prompt.New("bench", "lead", prompt.Markdown[prompt.NoParams]("Lead", parentPrompt, prompt.WithTools(offshootEcho(tb, r), taskTool))))(tb)
	return p, offshootParentSession(tb, n)
}

func offshootTaskHandoff(tb testing.TB, n int, handoff bool) *rig {
	r := &rig{}
	final := offshootResponse()
	child := model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		r.children.Add(1)
		if !carriesConversation(req) {
			return nil, errNotForked
		}
		c := *final
		return &c, nil
	})
	call := model.ToolCall{ID: "c", Name: task.ToolName, Arguments: offshootTaskArgs}
	if !handoff {
		call = model.ToolCall{ID: "c", Name: echoName, Arguments: echoArgs}
	}
	sc := &script{calls: 1}
	m := offshootModel(sc, offshootResponse(call), final)
	p, s := offshootTaskParent(tb, r, n, m, child, 0)
	snap := s.Snapshot()
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		// Each run starts from the same parent, as in offshoot's row.
		defer func() { _ = s.Rollback(snap) }()
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, ModelName: model.Main, UserMessage: userMessage, MaxTurns: 2})
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

func offshootTaskScale(tb testing.TB, n, children int) scaleRun {
	r := &rig{}
	var bar *barrier
	final := offshootResponse()
	child := model.Func(func(ctx context.Context, req *model.Request) (*model.Response, error) {
		if !carriesConversation(req) {
			return nil, errNotForked
		}
		if err := bar.wait(ctx); err != nil {
			return nil, err
		}
		c := *final
		return &c, nil
	})
	calls := make([]model.ToolCall, children)
	for i := range calls {
		calls[i] = model.ToolCall{ID: fmt.Sprintf("c%d", i), Name: task.ToolName, Arguments: offshootTaskArgs}
	}
	sc := &script{calls: 1}
	m := offshootModel(sc, offshootResponse(calls...), final)
	p, s := offshootTaskParent(tb, r, n, m, child, children)
	snap := s.Snapshot()
	return func(ctx context.Context, b *barrier) error {
		bar = b
		sc.reset()
		defer func() { _ = s.Rollback(snap) }()
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, ModelName: model.Main, UserMessage: userMessage, MaxTurns: 2})
		if err != nil {
			return err
		}
		if failed := countFailed(s); failed > 0 {
			return fmt.Errorf("offshoot-task: %d of %d Task calls failed", failed, children)
		}
		if !strings.Contains(resp.Text, finalAnswer) {
			return fmt.Errorf("offshoot-task: the parent answered %q", resp.Text)
		}
		return nil
	}
}
