package runner_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

// windowModel is a scripted chat model that enforces a context window: a
// request over window tokens (4 bytes a token, 4 more a message) fails
// with model.ErrContextLength. It answers a user message with a call of
// the read tool, the tool's result with a short answer, and a summary
// turn (the compaction prompt) with a summary; it reports each request's
// size as its usage, and keeps the figures the tests and benchmarks check.
type windowModel struct {
	window int
	// requests, when set, is given each chat request (not the summaries).
	requests func(req *model.Request, tokens int)

	mu                            sync.Mutex
	calls, summaries, overflows   int
	inputTokens, summaryTokens    int
	lastSummaryInput, lastSummary string
}

func (m *windowModel) Describe() model.Description {
	return model.Description{ID: "window-model", ContextWindow: m.window, MaxOutputTokens: m.window / 16}
}

// tokensOf is the model's count of msgs.
func tokensOf(msgs []model.Message) int {
	n := 0
	for _, msg := range msgs {
		n += 4 + len(msg.Content)/4
		for _, c := range msg.ToolCalls {
			n += 4 + (len(c.Name)+len(c.Arguments))/4
		}
	}
	return n
}

func (m *windowModel) Generate(_ context.Context, req *model.Request) (*model.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := tokensOf(req.Messages)
	if m.window > 0 && n > m.window {
		m.overflows++
		return nil, fmt.Errorf("%w: %d tokens, more than the window of %d", model.ErrContextLength, n, m.window)
	}
	if strings.Contains(req.Messages[0].Content, "You write the summary") {
		m.summaries++
		m.summaryTokens += n
		m.lastSummaryInput = req.Messages[len(req.Messages)-1].Content
		m.lastSummary = fmt.Sprintf("Summary %d: the user asked questions; the agent read files and answered each.", m.summaries)
		return &model.Response{Message: model.AssistantMessage(m.lastSummary), Usage: model.Usage{InputTokens: n, OutputTokens: 20, TotalTokens: n + 20}}, nil
	}
	m.calls++
	m.inputTokens += n
	if m.requests != nil {
		m.requests(req, n)
	}
	last := req.Messages[len(req.Messages)-1]
	var msg model.Message
	if last.Role == model.RoleTool {
		msg = model.AssistantMessage("I read it: " + last.Content[:min(40, len(last.Content))])
	} else {
		msg = model.AssistantMessage("", model.ToolCall{ID: fmt.Sprintf("call-%d", m.calls), Name: "read", Arguments: fmt.Sprintf(`{"n":%d}`, m.calls)})
	}
	return &model.Response{Message: msg, Usage: model.Usage{InputTokens: n, OutputTokens: 10, TotalTokens: n + 10}}, nil
}

// ReadParams are the read tool's.
type ReadParams struct {
	N int `json:"n"`
}

// resultSize is the size of the read tool's n-th result: 1 to 50 KB,
// spread evenly by a multiplicative hash.
func resultSize(n int) int { return 1<<10 + int(uint32(n)*2654435761%(49<<10)) }

// readTool returns a result of resultSize(n) bytes.
func readTool(t testing.TB) tools.Tool {
	t.Helper()
	tool, err := tools.New("read", "Read a file.", func(_ context.Context, _ *tools.Invocation, p ReadParams) (tools.Result[string], error) {
		line := fmt.Sprintf("line of file %d: the quick brown fox jumps over the lazy dog\n", p.N)
		size := resultSize(p.N)
		return tools.Result[string]{Message: strings.Repeat(line, size/len(line)+1)[:size], Success: true}, nil
	})
	require.NoError(t, err)
	return tool
}

// chatPrompt is the prompt of the long chats: a role and the read tool.
func chatPrompt(t testing.TB) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New("test", "chat", prompt.Markdown[prompt.NoParams]("Role", "You answer questions by reading files.", prompt.WithTools(readTool(t))))
	require.NoError(t, err)
	return p
}
