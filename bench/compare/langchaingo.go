package compare

import (
	"context"
	"fmt"
	"testing"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// langchaingo runs a one-shot ReAct agent (agents.NewOneShotAgent) through
// agents.Executor with no callbacks. The model's replies are text the
// executor parses ("Action: echo / Action Input: hi"), so it is a loose
// reference: there is no tool-call structure to decode, and each turn's
// prompt carries the scratchpad of every earlier step.

// langchaingoModel is the fake: a shallow copy of call for the script's
// tool turns, of final after them.
type langchaingoModel struct {
	sc          *script
	call, final *llms.ContentResponse
}

func (m *langchaingoModel) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	r := *m.final
	if m.sc.toolTurn() {
		r = *m.call
	}
	return &r, nil
}

func (m *langchaingoModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func langchaingoResponse(text string) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text, StopReason: "stop",
		GenerationInfo: map[string]any{"PromptTokens": 10, "CompletionTokens": 2, "TotalTokens": 12}}}}
}

// langchaingoEcho is the echo tool; its input is the text after
// "Action Input:".
type langchaingoEcho struct{ r *rig }

func (langchaingoEcho) Name() string        { return echoName }
func (langchaingoEcho) Description() string { return "Echo the text back." }
func (e langchaingoEcho) Call(_ context.Context, input string) (string, error) {
	e.r.echoes.Add(1)
	return input, nil
}

func langchaingoLoop(_ testing.TB, k int) *rig {
	r := &rig{}
	sc := &script{calls: int64(k)}
	m := &langchaingoModel{sc: sc,
		call:  langchaingoResponse("Thought: I should echo.\nAction: " + echoName + "\nAction Input: hi"),
		final: langchaingoResponse("Thought: I know the answer.\nFinal Answer: " + finalAnswer)}
	exec := agents.NewExecutor(agents.NewOneShotAgent(m, []tools.Tool{langchaingoEcho{r}}), agents.WithMaxIterations(k+1))
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		out, err := exec.Call(ctx, map[string]any{"input": userMessage})
		if err != nil {
			return "", err
		}
		text, ok := out["output"].(string)
		if !ok {
			return "", fmt.Errorf("langchaingo: the executor returned no output: %v", out)
		}
		return text, nil
	}
	return r
}
