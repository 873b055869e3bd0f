package compare

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/x/session"
	"github.com/firebase/genkit/go/genkit"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// genkit runs genkit.Generate with max turns and tools defined with
// genkit.DefineTool. The parent's N events are its session state
// (core/x/session); the hand-off is a tool that starts a child session from
// the parent's state — State() copies it through JSON — and runs one
// Generate on it.

// genkitState is the session state of a genkit parent.
type genkitState struct {
	Events []parentEvent `json:"events"`
}

var tracingOff sync.Once

// genkitInit returns a fresh genkit instance. Genkit always runs its spans
// through the global OpenTelemetry provider; the first call installs one
// that samples nothing and exports nowhere, so no span is recorded.
func genkitInit(tb testing.TB) *genkit.Genkit {
	tracingOff.Do(func() {
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample())))
	})
	// Init watches for signals until its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	return genkit.Init(ctx)
}

var genkitSupports = &ai.ModelOptions{Supports: &ai.ModelSupports{Tools: true, Multiturn: true, SystemRole: true}}

// genkitModel defines the fake: a shallow copy of call for the script's tool
// turns, of final after them; before, when set, runs first.
func genkitModel(g *genkit.Genkit, name string, sc *script, call, final *ai.ModelResponse, before func(ctx context.Context, req *ai.ModelRequest) error) ai.Model {
	return genkit.DefineModel(g, "bench/"+name, genkitSupports, func(ctx context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		if before != nil {
			if err := before(ctx, req); err != nil {
				return nil, err
			}
		}
		r := *final
		if sc.toolTurn() {
			r = *call
		}
		// Genkit writes the token counts it computes into the response's
		// usage, so each response gets its own.
		if r.Usage != nil {
			u := *r.Usage
			r.Usage = &u
		}
		return &r, nil
	})
}

func genkitRequest(ref, name string, input any) *ai.Part {
	return ai.NewToolRequestPart(&ai.ToolRequest{Ref: ref, Name: name, Input: input})
}

func genkitResponse(parts ...*ai.Part) *ai.ModelResponse {
	msg := ai.NewModelTextMessage(finalAnswer)
	if len(parts) > 0 {
		msg = &ai.Message{Role: ai.RoleModel, Content: parts}
	}
	return &ai.ModelResponse{Message: msg, FinishReason: ai.FinishReasonStop,
		Usage: &ai.GenerationUsage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}
}

func genkitEcho(g *genkit.Genkit, r *rig) ai.Tool {
	return genkit.DefineTool(g, echoName, "Echo the text back.", func(_ *ai.ToolContext, p echoParams) (echoResult, error) {
		r.echoes.Add(1)
		return echoResult{Echo: p.Text}, nil
	})
}

func genkitText(resp *ai.ModelResponse, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

func genkitLoop(tb testing.TB, k int) *rig {
	r := &rig{}
	g := genkitInit(tb)
	sc := &script{calls: int64(k)}
	m := genkitModel(g, "agent", sc, genkitResponse(genkitRequest("c", echoName, map[string]any{"text": "hi"})), genkitResponse(), nil)
	echo := genkitEcho(g, r)
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		return genkitText(genkit.Generate(ctx, g, ai.WithModel(m), ai.WithSystem(parentPrompt), ai.WithPrompt(userMessage),
			ai.WithTools(echo), ai.WithMaxTurns(k+1)))
	}
	return r
}

// genkitParent defines the echo tool and the hand-off tool on g, and
// returns the parent session holding n events. The hand-off tool starts a
// child session from a copy of the parent's state and runs one Generate on
// child, a model defined on g.
func genkitParent(tb testing.TB, g *genkit.Genkit, r *rig, n int, child ai.Model) (*session.Session[genkitState], []ai.ToolRef) {
	delegate := genkit.DefineTool(g, delegateName, "Hands one piece of work to a subagent that starts from this session's state.",
		func(tc *ai.ToolContext, p delegateParams) (string, error) {
			parent := session.FromContext[genkitState](tc)
			if parent == nil {
				return "", errors.New("genkit: no parent session in the tool's context")
			}
			state := parent.State()
			r.childSaw.Store(int64(len(state.Events)))
			sess, err := session.New(tc, session.WithInitialState(state))
			if err != nil {
				return "", err
			}
			return genkitText(genkit.Generate(session.NewContext(tc, sess), g, ai.WithModel(child),
				ai.WithSystem(childPrompt), ai.WithPrompt(p.Request)))
		})
	parent := must(session.New(context.Background(), session.WithInitialState(genkitState{Events: events(n)})))(tb)
	return parent, []ai.ToolRef{genkitEcho(g, r), delegate}
}

func genkitHandoff(tb testing.TB, n int, handoff bool) *rig {
	r := &rig{}
	g := genkitInit(tb)
	child := genkitModel(g, "child", &script{}, nil, genkitResponse(), func(context.Context, *ai.ModelRequest) error {
		r.children.Add(1)
		return nil
	})
	parent, tools := genkitParent(tb, g, r, n, child)
	call := genkitRequest("c", delegateName, map[string]any{"request": delegateRequest})
	if !handoff {
		call = genkitRequest("c", echoName, map[string]any{"text": "hi"})
	}
	sc := &script{calls: 1}
	m := genkitModel(g, "lead", sc, genkitResponse(call), genkitResponse(), nil)
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		return genkitText(genkit.Generate(session.NewContext(ctx, parent), g, ai.WithModel(m), ai.WithSystem(parentPrompt),
			ai.WithPrompt(userMessage), ai.WithTools(tools...), ai.WithMaxTurns(2)))
	}
	return r
}

func genkitScale(tb testing.TB, n, children int) scaleRun {
	r := &rig{}
	g := genkitInit(tb)
	var bar *barrier
	child := genkitModel(g, "child", &script{}, nil, genkitResponse(), func(ctx context.Context, _ *ai.ModelRequest) error {
		return bar.wait(ctx)
	})
	parent, tools := genkitParent(tb, g, r, n, child)
	calls := make([]*ai.Part, children)
	for i := range calls {
		calls[i] = genkitRequest(fmt.Sprintf("c%d", i), delegateName, map[string]any{"request": delegateRequest})
	}
	sc := &script{calls: 1}
	m := genkitModel(g, "lead", sc, genkitResponse(calls...), genkitResponse(), nil)
	return func(ctx context.Context, b *barrier) error {
		bar = b
		sc.reset()
		text, err := genkitText(genkit.Generate(session.NewContext(ctx, parent), g, ai.WithModel(m), ai.WithSystem(parentPrompt),
			ai.WithPrompt(userMessage), ai.WithTools(tools...), ai.WithMaxTurns(2)))
		if err == nil && text != finalAnswer {
			err = fmt.Errorf("genkit: the parent answered %q", text)
		}
		return err
	}
}
