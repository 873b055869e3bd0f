package compare

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// eino with streaming on: adk.Runner with EnableStreaming, so the agent
// calls its model's Stream and its events carry message streams, which the
// harness reads chunk by chunk as a UI would, counting the assistant's.

// einoStreamer is the streaming fake: for the script's tool turns it
// streams the tool call as one chunk, after them the final answer in
// finalChunks chunks, the last carrying the usage. eino's stream elements
// are *schema.Message, so each call makes one shallow copy of each prepared
// chunk, as einoModel makes one of its prepared response.
type einoStreamer struct {
	sc                      *script
	callChunks, finalChunks []*schema.Message
}

func newEinoStreamer(sc *script, call, final *schema.Message) *einoStreamer {
	m := &einoStreamer{sc: sc, callChunks: []*schema.Message{call}}
	pieces := streamChunks(final.Content, finalChunks)
	for i, t := range pieces {
		c := schema.AssistantMessage(t, nil)
		if i == len(pieces)-1 {
			c.ResponseMeta = final.ResponseMeta
		}
		m.finalChunks = append(m.finalChunks, c)
	}
	return m
}

func (m *einoStreamer) next() []*schema.Message {
	if m.sc.toolTurn() {
		return m.callChunks
	}
	return m.finalChunks
}

func (m *einoStreamer) Generate(_ context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return schema.ConcatMessages(m.next())
}

func (m *einoStreamer) Stream(_ context.Context, _ []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	prepared := m.next()
	chunks := make([]*schema.Message, len(prepared))
	for i, p := range prepared {
		c := *p
		chunks[i] = &c
	}
	return schema.StreamReaderFromArray(chunks), nil
}

func (m *einoStreamer) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

// einoStreamRun drains one streaming run of the agent, reading every
// message stream to its end and counting the assistant's chunks into
// deltas; it returns the final answer.
func einoStreamRun(ctx context.Context, runner *adk.Runner, input []adk.Message, deltas *int64) (string, error) {
	iter := runner.Run(ctx, input)
	var last string
	answered := false
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return "", ev.Err
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		out := ev.Output.MessageOutput
		assistant := out.Role == schema.Assistant
		if !out.IsStreaming {
			if assistant && out.Message != nil {
				last, answered = out.Message.Content, true
			}
			continue
		}
		text, n, err := readStream(out.MessageStream)
		if err != nil {
			return "", err
		}
		if assistant {
			*deltas += n
			last, answered = text, true
		}
	}
	if !answered {
		return "", errors.New("eino-stream: the agent gave no answer")
	}
	return last, nil
}

// readStream reads sr to its end and closes it; it returns the text of its
// chunks and how many there were.
func readStream(sr *schema.StreamReader[*schema.Message]) (string, int64, error) {
	defer sr.Close()
	var b strings.Builder
	var n int64
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), n, nil
		}
		if err != nil {
			return "", n, err
		}
		n++
		b.WriteString(chunk.Content)
	}
}

func einoStreamLoop(tb testing.TB, k int) *rig {
	r := &rig{}
	ctx := context.Background()
	sc := &script{calls: int64(k)}
	agent := must(adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "agent", Description: "Echoes things.", Instruction: parentPrompt,
		Model:         newEinoStreamer(sc, einoCall(einoToolCall("c", echoName, echoArgs)), einoFinal()),
		ToolsConfig:   adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{einoEcho(tb, r)}}},
		MaxIterations: k + 1,
	}))(tb)
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: true})
	input := []adk.Message{schema.UserMessage(userMessage)}
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		var deltas int64
		text, err := einoStreamRun(ctx, runner, input, &deltas)
		r.deltas.Add(deltas)
		return text, err
	}
	return r
}
