package runner_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools"
)

var ctx = context.Background()

type EchoParams struct {
	Text string `json:"text" validate:"required,max=20"`
}

type EchoResult struct {
	Echo string `json:"echo"`
}

// Echoed is the event the echo tool returns.
type Echoed struct{ Text string }

func echoTool(t testing.TB, opts ...tools.Option) tools.Tool {
	t.Helper()
	tool, err := tools.New("echo", "Echo the text back.", func(_ context.Context, _ *tools.Invocation, p EchoParams) (tools.Result[EchoResult], error) {
		switch p.Text {
		case "fail":
			return tools.Result[EchoResult]{}, errors.New("echo refused")
		case "panic":
			panic("echo exploded")
		}
		return tools.OK("echoed", EchoResult{Echo: p.Text}).WithEvents(Echoed{p.Text}), nil
	}, opts...)
	require.NoError(t, err)
	return tool
}

// sleepTool sleeps for the given milliseconds, honouring ctx.
type SleepParams struct {
	MS int `json:"ms"`
}

func sleepTool(t testing.TB, running *atomic.Int32, peak *atomic.Int32) tools.Tool {
	t.Helper()
	tool, err := tools.New("sleep", "Sleep a while.", func(ctx context.Context, _ *tools.Invocation, p SleepParams) (tools.Result[string], error) {
		if running != nil {
			n := running.Add(1)
			for {
				old := peak.Load()
				if n <= old || peak.CompareAndSwap(old, n) {
					break
				}
			}
			defer running.Add(-1)
		}
		select {
		case <-time.After(time.Duration(p.MS) * time.Millisecond):
			return tools.OK("slept", fmt.Sprint(p.MS)).WithEvents(Echoed{fmt.Sprint("slept ", p.MS)}), nil
		case <-ctx.Done():
			return tools.Result[string]{}, ctx.Err()
		}
	}, tools.ConcurrentSafe())
	require.NoError(t, err)
	return tool
}

type Task struct {
	Goal string `validate:"required"`
}

func newPrompt(t testing.TB, ts ...tools.Tool) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New("test", "agent",
		prompt.Markdown[Task]("Task", "Work on: {{ .Goal }}", prompt.WithTools(ts...)),
	)
	require.NoError(t, err)
	return p
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newSession is a test session whose clock moves a millisecond at each
// reading, so that durations are not zero.
func newSession(t testing.TB) *session.Session {
	t.Helper()
	var n atomic.Int64
	clock := func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Millisecond) }
	return sessiontest.New(t, session.WithBus(bus.New(bus.WithClock(clock))))
}

func request(p *prompt.Prompt, s *session.Session, m model.Model) runner.Request {
	return runner.Request{Prompt: p, Params: []any{Task{Goal: "testing"}}, Session: s, Model: m, ModelName: "scripted", UserMessage: "go"}
}

// toolMessages returns the contents of the conversation's tool messages.
func toolMessages(resp *runner.Response) []string {
	var out []string
	for _, m := range resp.Messages {
		if m.Role == model.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

func lastToolMessage(t testing.TB, resp *runner.Response) string {
	t.Helper()
	msgs := toolMessages(resp)
	require.NotEmpty(t, msgs)
	return msgs[len(msgs)-1]
}

type atomicInt struct{ atomic.Int32 }
