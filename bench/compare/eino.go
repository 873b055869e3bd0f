package compare

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// eino runs an adk ChatModelAgent through adk.Runner (no callbacks
// registered, streaming off); the hand-off is adk.NewAgentTool with
// WithFullChatHistoryAsInput: the child receives a copy of the parent's
// messages. The parent's N events are its chat history.

// einoModel is the fake: a shallow copy of call for the script's tool
// turns, of final after them. before, when set, runs first (the scale
// workload's barrier).
type einoModel struct {
	sc          *script
	call, final *schema.Message
	before      func(ctx context.Context, input []*schema.Message) error
}

func (m *einoModel) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if m.before != nil {
		if err := m.before(ctx, input); err != nil {
			return nil, err
		}
	}
	r := *m.final
	if m.sc.toolTurn() {
		r = *m.call
	}
	return &r, nil
}

func (m *einoModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *einoModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }

func einoToolCall(id, name, args string) schema.ToolCall {
	return schema.ToolCall{ID: id, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: args}}
}

func einoCall(calls ...schema.ToolCall) *schema.Message {
	msg := schema.AssistantMessage("", calls)
	msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}}
	return msg
}

func einoFinal() *schema.Message {
	msg := schema.AssistantMessage(finalAnswer, nil)
	msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}}
	return msg
}

func einoEcho(tb testing.TB, r *rig) tool.BaseTool {
	return must(utils.InferTool(echoName, "Echo the text back.", func(_ context.Context, p echoParams) (echoResult, error) {
		r.echoes.Add(1)
		return echoResult{Echo: p.Text}, nil
	}))(tb)
}

// einoRun drains one run of the agent and returns its final answer.
func einoRun(ctx context.Context, runner *adk.Runner, input []adk.Message) (string, error) {
	iter := runner.Run(ctx, input)
	var last adk.Message
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return "", ev.Err
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Role == schema.Assistant {
			msg, err := ev.Output.MessageOutput.GetMessage()
			if err != nil {
				return "", err
			}
			last = msg
		}
	}
	if last == nil {
		return "", errors.New("eino: the agent gave no answer")
	}
	return last.Content, nil
}

func einoLoop(tb testing.TB, k int) *rig {
	r := &rig{}
	ctx := context.Background()
	sc := &script{calls: int64(k)}
	agent := must(adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "agent", Description: "Echoes things.", Instruction: parentPrompt,
		Model:         &einoModel{sc: sc, call: einoCall(einoToolCall("c", echoName, echoArgs)), final: einoFinal()},
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoEcho(tb, r)}}},
		MaxIterations: k + 1,
	}))(tb)
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	input := []adk.Message{schema.UserMessage(userMessage)}
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		return einoRun(ctx, runner, input)
	}
	return r
}

// einoParent returns a runner for the parent agent, offering echo and the
// child as an agent tool with the full chat history, and the parent's
// input: n messages of history, then the user's message.
func einoParent(tb testing.TB, r *rig, n int, sc *script, call *schema.Message, child *einoModel) (*adk.Runner, []adk.Message) {
	ctx := context.Background()
	worker := must(adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: delegateName, Description: "Investigates one thing and reports.", Instruction: childPrompt, Model: child,
	}))(tb)
	agentTool := adk.NewAgentTool(ctx, worker, adk.WithFullChatHistoryAsInput())
	parent := must(adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "lead", Description: "Leads the work.", Instruction: parentPrompt,
		Model:         &einoModel{sc: sc, call: call, final: einoFinal()},
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoEcho(tb, r), agentTool}}},
		MaxIterations: 2,
	}))(tb)
	input := append(einoHistory(n), schema.UserMessage(userMessage))
	return adk.NewRunner(ctx, adk.RunnerConfig{Agent: parent}), input
}

// einoHistory returns n messages of a conversation with the roles a real
// one has: a user's message, an assistant's tool call, the tool's result,
// and again (a tool call without room for its result is a user's message
// instead, so that every call has its result). eino passes an all-user
// history through untouched, which would understate what its hand-off
// costs.
func einoHistory(n int) []adk.Message {
	out := make([]adk.Message, 0, n+1)
	for i := range n {
		body := fmt.Sprintf("%d %s", i, eventBody)
		switch id := fmt.Sprintf("h%d", i-1); {
		case i%3 == 1 && i+1 < n:
			out = append(out, schema.AssistantMessage("", []schema.ToolCall{einoToolCall(fmt.Sprintf("h%d", i), echoName, echoArgs)}))
		case i%3 == 2:
			out = append(out, schema.ToolMessage(body, id, schema.WithToolName(echoName)))
		default:
			out = append(out, schema.UserMessage(body))
		}
	}
	return out
}

func einoHandoff(tb testing.TB, n int, handoff bool) *rig {
	r := &rig{}
	child := &einoModel{sc: &script{}, final: einoFinal(), before: func(_ context.Context, input []*schema.Message) error {
		r.children.Add(1)
		r.childSaw.Store(int64(len(input)))
		return nil
	}}
	call := einoToolCall("c", delegateName, `{"request":"`+delegateRequest+`"}`)
	if !handoff {
		call = einoToolCall("c", echoName, echoArgs)
	}
	sc := &script{calls: 1}
	runner, input := einoParent(tb, r, n, sc, einoCall(call), child)
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		return einoRun(ctx, runner, input)
	}
	return r
}

func einoScale(tb testing.TB, n, children int) scaleRun {
	r := &rig{}
	var bar *barrier
	child := &einoModel{sc: &script{}, final: einoFinal(), before: func(ctx context.Context, _ []*schema.Message) error {
		return bar.wait(ctx)
	}}
	calls := make([]schema.ToolCall, children)
	for i := range calls {
		calls[i] = einoToolCall(fmt.Sprintf("c%d", i), delegateName, `{"request":"`+delegateRequest+`"}`)
	}
	sc := &script{calls: 1}
	runner, input := einoParent(tb, r, n, sc, einoCall(calls...), child)
	return func(ctx context.Context, b *barrier) error {
		bar = b
		sc.reset()
		text, err := einoRun(ctx, runner, input)
		if err == nil && text != finalAnswer {
			err = fmt.Errorf("eino: the parent answered %q", text)
		}
		return err
	}
}
