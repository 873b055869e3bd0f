package anthropic_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
	"github.com/offshoot-dev/offshoot/model/openai"
)

// canned is a transport that answers every request with the same body,
// read from memory: what a call costs beyond it is the adapter's.
type canned struct {
	contentType, body string
}

func (c canned) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	_ = r.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {c.contentType}}, Body: io.NopCloser(strings.NewReader(c.body)), Request: r}, nil
}

// exchange is the scripted exchange both adapters are measured on: a
// 20-turn conversation with six tools, answered with a sentence of text
// in 40 pieces and a tool call.
func exchange() *model.Request {
	req := &model.Request{Messages: []model.Message{model.SystemMessage("You are a careful engineer. " + strings.Repeat("Follow the house rules. ", 60)), model.UserMessage("Fix the build.")},
		Tools: loopTools()}
	for i := range 20 {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages, model.AssistantMessage(fmt.Sprintf("Step %d.", i), model.ToolCall{ID: id, Name: "tool_1", Arguments: `{"path":"src"}`}),
			model.ToolMessage(id, "tool_1", strings.Repeat("a line of the tool's output\n", 10)))
	}
	return req
}

const pieces = 40

func anthropicBodies() (whole, stream string) {
	var w, s strings.Builder
	text := strings.Repeat("word ", pieces)
	fmt.Fprintf(&w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%q},{"type":"tool_use","id":"toolu_1","name":"tool_1","input":{"path":"src"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":4000,"cache_creation_input_tokens":100,"output_tokens":50}}`, text)
	s.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":20,\"cache_read_input_tokens\":4000,\"cache_creation_input_tokens\":100,\"output_tokens\":1}}}\n\n")
	s.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for range pieces {
		s.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"word \"}}\n\n")
	}
	s.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	s.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"tool_1\",\"input\":{}}}\n\n")
	s.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\\\"src\\\"}\"}}\n\n")
	s.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n")
	s.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":50}}\n\n")
	s.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return w.String(), s.String()
}

func openaiBodies() (whole, stream string) {
	var w, s strings.Builder
	text := strings.Repeat("word ", pieces)
	fmt.Fprintf(&w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":%q,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"tool_1","arguments":"{\"path\":\"src\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":4120,"completion_tokens":50,"total_tokens":4170,"prompt_tokens_details":{"cached_tokens":4000}}}`, text)
	for range pieces {
		s.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}]}` + "\n\n")
	}
	s.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"tool_1","arguments":"{\"path\":\"src\"}"}}]},"finish_reason":null}]}` + "\n\n")
	s.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	s.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":4120,"completion_tokens":50,"total_tokens":4170,"prompt_tokens_details":{"cached_tokens":4000}}}` + "\n\n")
	s.WriteString("data: [DONE]\n\n")
	return w.String(), s.String()
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAdapterCall measures what each adapter adds to one call of the
// same scripted exchange — rendering the request, reading the answer
// (whole or streamed), mapping it — with the answer served from memory.
func BenchmarkAdapterCall(b *testing.B) {
	aw, as := anthropicBodies()
	ow, os := openaiBodies()
	ctx := context.Background()
	for _, adapter := range []string{"anthropic", "openai"} {
		for _, streamed := range []bool{false, true} {
			name := adapter + "/whole"
			if streamed {
				name = adapter + "/streamed"
			}
			b.Run(name, func(b *testing.B) {
				var m model.Model
				var err error
				switch adapter {
				case "anthropic":
					body, ct := aw, "application/json"
					if streamed {
						body, ct = as, "text/event-stream"
					}
					m, err = anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", HTTPClient: &http.Client{Transport: canned{ct, body}}})
				default:
					body, ct := ow, "application/json"
					if streamed {
						body, ct = os, "text/event-stream"
					}
					m, err = openai.New(openai.Config{Model: "gpt-4.1", HTTPClient: &http.Client{Transport: canned{ct, body}}})
				}
				if err != nil {
					b.Fatal(err)
				}
				req := exchange()
				b.ReportAllocs()
				before := cpuTime()
				n := 0
				for b.Loop() {
					n++
					var resp *model.Response
					if streamed {
						resp, err = model.Stream(ctx, m, req, func(model.Delta) error { return nil })
					} else {
						resp, err = m.Generate(ctx, req)
					}
					if err != nil || len(resp.Message.ToolCalls) != 1 {
						b.Fatal(resp, err)
					}
				}
				// The process's CPU time per call: on a loaded machine the
				// wall time measures the other processes too.
				b.ReportMetric(float64(cpuTime()-before)/float64(n), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkForkWorkflow runs the five fork-context children of a caller
// with a 20-turn, 50 KB conversation against the billing server, with
// caching by rule and with caching off, and reports the share of the
// children's input read from the cache and the workflow's cost in
// input-token equivalents (read 0.1×, write 1.25×) relative to caching
// off; and the same cost ratio for a 20-turn loop.
func BenchmarkForkWorkflow(b *testing.B) {
	ctx := context.Background()
	var read, forkRatio, loopRatio float64
	for b.Loop() {
		usage := func(cfg anthropic.Config) (kids, all, loop model.Usage) {
			srv := anthropictest.NewServer()
			defer srv.Close()
			srv.Answer = forkAnswers(5)
			kids, all = forkWorkflow(ctx, b, newModel(b, srv, cfg), 5)
			loopSrv := anthropictest.NewServer()
			defer loopSrv.Close()
			loopSrv.Answer = loopAnswers(20)
			runLoop(ctx, b, callCounting(&loop), newModel(b, loopSrv, cfg), 20)
			return kids, all, loop
		}
		kids, on, loopOn := usage(anthropic.Config{})
		_, off, loopOff := usage(anthropic.Config{NoCache: true})
		read = float64(kids.CachedInputTokens) / float64(kids.InputTokens)
		forkRatio, loopRatio = cost(on)/cost(off), cost(loopOn)/cost(loopOff)
	}
	b.ReportMetric(100*read, "%-children-input-read")
	b.ReportMetric(100*forkRatio, "%-fork-cost")
	b.ReportMetric(100*loopRatio, "%-loop-cost")
}
