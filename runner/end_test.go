package runner_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// ends collects the PromptExecuted envelopes published on b.
type ends struct {
	mu   sync.Mutex
	envs []bus.Envelope
}

func watchEnds(t *testing.T, b *bus.Bus) *ends {
	t.Helper()
	e := &ends{}
	stop, err := bus.Subscribe(b, "ends", func(_ context.Context, env bus.Envelope, _ runner.PromptExecuted) error {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.envs = append(e.envs, env)
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(stop)
	return e
}

func (e *ends) all() []bus.Envelope {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]bus.Envelope(nil), e.envs...)
}

// Every evaluation ends with exactly one PromptExecuted, whatever way it
// ends, carrying its status and its error's kind, so that an observer
// closes what it opened on it and never guesses.
func TestEveryEvaluationEndsWithOneEvent(t *testing.T) {
	c, cancelAll := context.WithTimeout(ctx, 2*time.Minute) // watchdog
	defer cancelAll()
	rateLimited := &model.APIError{StatusCode: 429, Message: "slow down", Err: model.ErrRateLimited}
	for _, tt := range []struct {
		name string
		// setup returns the request, and a ctx for Evaluate (c when nil).
		setup      func(t *testing.T, s *session.Session) (runner.Request, context.Context)
		status     string
		kind       string
		unrecorded bool // the session was closed: the end is told, not recorded
	}{
		{"succeeded", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			return request(newPrompt(t, echoTool(t)), s, scripted.New(scripted.ToolCall("echo", `{"text":"x"}`), scripted.Text("done"))), nil
		}, "succeeded", "", false},
		{"the model fails", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			return request(newPrompt(t), s, scripted.New(scripted.Fail(rateLimited))), nil
		}, "failed", "rate_limited", false},
		{"max turns", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			req := request(newPrompt(t, echoTool(t)), s, scripted.New(scripted.Repeat(scripted.ToolCall("echo", `{"text":"x"}`))))
			req.MaxTurns = 2
			return req, nil
		}, "failed", "max_turns", false},
		{"over budget", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			m := scripted.New(scripted.Repeat(scripted.Reply(&model.Response{
				Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"x"}`}),
				Usage:   model.Usage{InputTokens: 80, OutputTokens: 20, TotalTokens: 100},
			})))
			req := request(newPrompt(t, echoTool(t)), s, m)
			req.Budget = 150
			return req, nil
		}, "failed", "budget_exceeded", false},
		{"cancelled during the model call", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			cc, cancel := context.WithCancel(c)
			m := scripted.New(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
				cancel()
				<-ctx.Done()
				return nil, ctx.Err()
			}))
			return request(newPrompt(t), s, m), cc
		}, "cancelled", "cancelled", false},
		{"deadline during a tool", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			cc, expire := expiringContext(c)
			waiting, err := tools.New("wait", "Wait.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
				expire()
				<-ctx.Done()
				return tools.Result[string]{}, ctx.Err()
			})
			require.NoError(t, err)
			return request(newPrompt(t, waiting), s, scripted.New(scripted.ToolCall("wait", `{}`), scripted.Text("never"))), cc
		}, "cancelled", "timeout", false},
		{"abandoned", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			cc, cancel := context.WithCancel(c)
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			stubborn, err := tools.New("stubborn", "Ignore the context.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
				cancel()
				<-release
				return tools.OK("late", ""), nil
			})
			require.NoError(t, err)
			req := request(newPrompt(t, stubborn), s, scripted.New(scripted.ToolCall("stubborn", `{}`), scripted.Text("never")))
			req.CancelGrace = time.Millisecond // the tool never returns before the test ends
			return req, cc
		}, "abandoned", "abandoned", false},
		{"the model panics", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			m := scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) { panic("boom") }))
			return request(newPrompt(t), s, m), nil
		}, "failed", "panic", false},
		{"a tool ends its goroutine", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			exits, err := tools.New("exit", "Exit.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
				runtime.Goexit()
				return tools.Result[string]{}, nil
			})
			require.NoError(t, err)
			return request(newPrompt(t, exits), s, scripted.New(scripted.ToolCall("exit", `{}`), scripted.Text("never"))), nil
		}, "failed", "goexit", false},
		{"the prompt does not render", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			req := request(newPrompt(t), s, scripted.New(scripted.Text("never")))
			req.Continue = "no-such-evaluation"
			return req, nil
		}, "failed", "render", false},
		{"the answer does not match the output", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			p, err := prompt.New("test", "judge", prompt.Markdown[Task]("Task", "Judge: {{ .Goal }}"), prompt.WithOutput[Verdict]())
			require.NoError(t, err)
			req := request(p, s, scripted.New(scripted.Text("not JSON")))
			req.OutputRetries = -1
			return req, nil
		}, "failed", "invalid_output", false},
		{"the session is closed meanwhile", func(t *testing.T, s *session.Session) (runner.Request, context.Context) {
			closing, err := tools.New("close", "Close the session.", func(_ context.Context, inv *tools.Invocation, _ struct{}) (tools.Result[string], error) {
				require.NoError(t, inv.Session.Close())
				return tools.OK("closed", ""), nil
			})
			require.NoError(t, err)
			return request(newPrompt(t, closing), s, scripted.New(scripted.ToolCall("close", `{}`), scripted.Text("never"))), nil
		}, "failed", "_OTHER", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			seen := watchEnds(t, s.Bus())
			req, ectx := tt.setup(t, s)
			if ectx == nil {
				ectx = c
			}
			resp, err := runner.Evaluate(ectx, req)
			envs := seen.all()
			require.Len(t, envs, 1, "exactly one end")
			end := envs[0].Payload.(runner.PromptExecuted)
			assert.Equal(t, tt.status, end.Status)
			assert.Equal(t, tt.kind, end.ErrorType)
			assert.Equal(t, s.ID(), envs[0].SessionID)
			assert.Equal(t, tt.status == "succeeded", end.Succeeded())
			if err != nil {
				assert.Equal(t, err.Error(), end.Error)
			} else {
				assert.Empty(t, end.Error)
			}
			if resp != nil {
				assert.Equal(t, resp.Evaluation, end.Evaluation)
				assert.Equal(t, resp.Turns, end.Turns)
				assert.Equal(t, resp.Usage, end.Usage)
				assert.Equal(t, resp.Duration, end.Duration)
			}
			if tt.unrecorded {
				assert.Zero(t, envs[0].Seq, "told, not recorded")
				return
			}
			assert.Positive(t, envs[0].Seq, "recorded")
			rec, ok := session.Latest[runner.PromptExecuted](s)
			require.True(t, ok)
			assert.Equal(t, end, rec)
		})
	}
}

// A model that ends the caller's goroutine (runtime.Goexit) ends the
// evaluation; its end is published on the way out.
func TestAnEvaluationEndedByGoexitEndsWithOneEvent(t *testing.T) {
	s := newSession(t)
	seen := watchEnds(t, s.Bus())
	m := scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
		runtime.Goexit()
		return nil, errors.New("unreachable")
	}))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = runner.Evaluate(ctx, request(newPrompt(t), s, m))
	}()
	<-done
	envs := seen.all()
	require.Len(t, envs, 1)
	end := envs[0].Payload.(runner.PromptExecuted)
	assert.Equal(t, "failed", end.Status)
	assert.Equal(t, "goexit", end.ErrorType)
}
