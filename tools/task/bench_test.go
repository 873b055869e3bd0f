package task_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// Observation is a ~100-byte event, as spec/performance.md measures.
type Observation struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
}

const workerText = "You investigate one thing and report."

// benchFront is one delegation front end, ready to be called as a model
// would call it from a parent holding n observations.
type benchFront struct {
	tool tools.Tool
	inv  *tools.Invocation
	args json.RawMessage
}

// benchParent returns the two front ends — dispatch_subagent and Task, each
// with an engine of its own running the same worker — on one parent
// session holding n observations, and a caller context with a one-turn
// child model.
func benchParent(b *testing.B, n int) (dispatch, taskFront benchFront, ctx context.Context) {
	b.Helper()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	answer := &model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{InputTokens: 20, OutputTokens: 1, TotalTokens: 21}}
	m := model.Func(func(context.Context, *model.Request) (*model.Response, error) { return answer, nil })
	unlimited := subagent.Options{MaxSpawns: 1 << 30}

	preg := prompt.NewRegistry()
	worker, err := prompt.New("agents", "worker", prompt.Markdown[prompt.NoParams]("Worker", workerText))
	must(err)
	must(preg.Register(worker))
	dtool, err := promptsubagent.Tool(preg, subagent.New(unlimited), promptsubagent.Options{})
	must(err)

	areg := agents.Load(agents.Options{NoBuiltins: true, ToolNames: []string{task.ToolName}, Agents: map[string]agents.Definition{
		"worker": {Description: "Investigates one thing.", Prompt: workerText},
	}})
	ttool, err := task.Tool(areg, subagent.New(unlimited), nil, task.Options{})
	must(err)

	s, err := session.New(session.WithRegistry(serde.NewRegistry()))
	must(err)
	b.Cleanup(func() { _ = s.Close() })
	must(session.Register(s, session.AppendAll[Observation]))
	const batch = 10_000
	for i := 0; i < n; i += batch {
		events := make([]any, 0, min(batch, n-i))
		for j := i; j < min(i+batch, n); j++ {
			events = append(events, Observation{ID: j, Body: "a line of tool output that is about eighty characters long, give or take a few"})
		}
		must(s.Dispatch(context.Background(), events...))
	}
	// The parent delegates from a tool call, so it has run an evaluation:
	// its session knows the runner's records.
	planner, err := prompt.New("root", "planner", prompt.Markdown[prompt.NoParams]("Planner", "Plan.", prompt.WithTools(dtool, ttool)))
	must(err)
	_, err = runner.Evaluate(context.Background(), runner.Request{Prompt: planner, Session: s, Model: m})
	must(err)

	front := func(t tools.Tool, args string) benchFront {
		set, err := tools.NewToolset(t)
		must(err)
		return benchFront{tool: t, args: json.RawMessage(args),
			inv: &tools.Invocation{Session: s, Bus: s.Bus(), CallID: "call-1", PromptNS: "root", PromptKey: "planner", Tools: set, Model: m, ModelName: "bench"}}
	}
	dispatch = front(dtool, `{"mode":"ad_hoc","prompt_ns":"agents","prompt_key":"worker","instructions":"Summarize the observations."}`)
	taskFront = front(ttool, `{"subagent_type":"worker","description":"Summarize the observations","prompt":"Summarize the observations."}`)
	return dispatch, taskFront, subagent.WithRun(context.Background())
}

// BenchmarkRoundTrip is one delegation round trip through each front end
// — decode the call, resolve the agent, snapshot, fork, render, a one-turn
// child, collect, teardown — from a parent holding N items, the two side
// by side so that one run compares them. Flat in N is the point, and Task
// within 1.5× of dispatch_subagent.
func BenchmarkRoundTrip(b *testing.B) {
	for _, n := range []int{10, 1_000, 10_000, 100_000} {
		dispatch, taskFront, ctx := benchParent(b, n)
		for _, f := range []struct {
			name  string
			front benchFront
		}{{promptsubagent.ToolName, dispatch}, {task.ToolName, taskFront}} {
			b.Run(fmt.Sprintf("%s/N=%d", f.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if out := f.front.tool.Call(ctx, f.front.inv, f.front.args); !out.Success {
						b.Fatal(out.Text)
					}
				}
			})
		}
	}
}

// BenchmarkForkContext is a Task round trip to an agent that carries on its
// caller's conversation of K messages, beside one to an isolated agent
// from the same caller: what forking the context adds.
func BenchmarkForkContext(b *testing.B) {
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	answer := &model.Response{Message: model.AssistantMessage("done")}
	child := model.Func(func(context.Context, *model.Request) (*model.Response, error) { return answer, nil })
	reg := agents.Load(agents.Options{NoBuiltins: true, ToolNames: []string{task.ToolName}, Agents: map[string]agents.Definition{
		"isolated": {Description: "Works from its task.", Prompt: workerText},
		"forked":   {Description: "Carries on.", Prompt: workerText, ForkContext: true},
	}})
	tool, err := task.Tool(reg, subagent.New(subagent.Options{MaxSpawns: 1 << 30}), nil, task.Options{})
	must(err)
	set, err := tools.NewToolset(tool)
	must(err)
	for _, k := range []int{10, 100, 1_000} {
		s, err := session.New(session.WithRegistry(serde.NewRegistry()))
		must(err)
		b.Cleanup(func() { _ = s.Close() })
		// The caller's conversation: k messages, then the turn that calls
		// Task (call-1), recorded by an evaluation.
		history := make([]model.Message, 0, k)
		for i := range k {
			if i%2 == 0 {
				history = append(history, model.UserMessage(fmt.Sprintf("question %d: about eighty characters of what the user asked, give or take", i)))
			} else {
				history = append(history, model.AssistantMessage(fmt.Sprintf("answer %d: about eighty characters of what the agent answered, give or take", i)))
			}
		}
		turns := 0
		caller := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			turns++
			if turns == 1 {
				return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "call-1", Name: "noop", Arguments: "{}"})}, nil
			}
			return answer, nil
		})
		noop, err := tools.New("noop", "Does nothing.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
			return tools.OK("ok", ""), nil
		})
		must(err)
		p, err := prompt.New("root", "main", prompt.Markdown[prompt.NoParams]("Main", "Chat.", prompt.WithTools(noop)))
		must(err)
		_, err = runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: caller, Messages: history, UserMessage: "Go on."})
		must(err)
		inv := &tools.Invocation{Session: s, Bus: s.Bus(), CallID: "call-1", PromptNS: "root", PromptKey: "main", Tools: set, Model: child, ModelName: "bench"}
		ctx := subagent.WithRun(context.Background())
		for _, agent := range []string{"isolated", "forked"} {
			args := json.RawMessage(`{"subagent_type":"` + agent + `","description":"Carry on","prompt":"Carry on."}`)
			b.Run(fmt.Sprintf("%s/K=%d", agent, k), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if out := tool.Call(ctx, inv, args); !out.Success {
						b.Fatal(out.Text)
					}
				}
			})
		}
	}
}
