package telemetry_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// FuzzModelControlledInput publishes the records of a turn whose tool
// call — name, id, arguments, result — and answer the model chose: the
// observer must not panic, must end every span it starts, and what it
// records with RecordContent must be JSON where the conventions say so.
func FuzzModelControlledInput(f *testing.F) {
	f.Add("echo", "call_1", `{"text":"hi"}`, "echoed", "done")
	f.Add("", "", "", "", "")
	f.Add("dispatch_subagent", "call_1", `{"a":`, "\x00\xff", "\"}]")
	f.Add("x y", "call_1", `[1,2]`, "", "stop")
	f.Fuzz(func(t *testing.T, name, id, args, result, answer string) {
		p := newProviders(t)
		b := bus.New(bus.WithClock(func() time.Time { return epoch }))
		opts := p.options()
		opts.RecordContent = true
		obs, err := telemetry.Observe(b, opts)
		require.NoError(t, err)
		ctx := context.Background()
		env := func(payload any) bus.Envelope { return bus.Envelope{SessionID: "s1", Payload: payload} }
		call := model.ToolCall{ID: id, Name: name, Arguments: args}
		res := b.Publish(ctx,
			env(runner.PromptRendered{Evaluation: "e1", NS: "demo", Key: "fuzz", Text: answer}),
			env(runner.ConversationMessage{Evaluation: "e1", Message: model.UserMessage(answer)}),
			env(runner.ConversationMessage{Evaluation: "e1", Message: model.AssistantMessage(answer, call, call)}),
			env(runner.ModelCalled{Evaluation: "e1", Model: name, FinishReason: model.FinishReason(answer), Duration: time.Second}),
			bus.Envelope{ParentSessionID: "s1", Payload: subagent.Started{AgentID: id, Name: name, SessionID: answer, ParentID: "s1", CallID: id, Background: true}},
			env(runner.ToolInvoked{Evaluation: "e1", Name: name, CallID: id, Arguments: json.RawMessage(args), Result: result}),
			env(subagent.TaskStarted{TaskID: id, SessionID: answer}),
			env(runner.ConversationMessage{Evaluation: "e1", Message: model.ToolMessage(id, name, result)}),
			env(runner.PromptExecuted{Evaluation: "e1", Text: answer}),
		)
		require.NoError(t, res.Err())
		obs.Stop()
		for _, s := range p.spans.GetSpans() {
			assert.False(t, s.EndTime.IsZero(), s.Name)
			for _, k := range []string{"gen_ai.system_instructions", "gen_ai.input.messages", "gen_ai.output.messages"} {
				if v := attr(s, k); v != "" {
					assert.True(t, json.Valid([]byte(v)), "%s %s: %q", s.Name, k, v)
				}
			}
		}
	})
}
