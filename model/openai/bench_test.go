package openai

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
)

// streamBody is a stream of n text chunks shaped like OpenAI's, a tool
// call in fragments, the finish reason, usage and [DONE].
func streamBody(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741569952,`+
			`"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_44709d6fcb",`+
			`"choices":[{"index":0,"delta":{"content":" word%d"},"logprobs":null,"finish_reason":null}],"usage":null}`+"\n\n", i%10)
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":1000,"total_tokens":1020}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// reportPerChunk reports the time and the allocations per chunk of a
// benchmark whose operations each handle chunks chunks.
func reportPerChunk(b *testing.B, chunks int, run func()) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		run()
		n++
	}
	runtime.ReadMemStats(&after)
	total := float64(n * chunks)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/chunk")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/chunk")
}

// BenchmarkStreamChunk measures what the adapter adds between a chunk of
// the provider's stream (already received) and the delta callback:
// reading the event, decoding the chunk, assembling the answer, calling
// back.
func BenchmarkStreamChunk(b *testing.B) {
	const chunks = 1000
	body := streamBody(chunks)
	req := &model.Request{}
	delivered := 0
	fn := func(d model.Delta) error {
		delivered += len(d.Text)
		return nil
	}
	reportPerChunk(b, chunks, func() {
		s := streamState{req: req, fn: fn, status: 200, limit: maxBody}
		if err := s.read(newEventReader(bytes.NewReader(body))); err != nil {
			b.Fatal(err)
		}
		if resp := s.response(nil); len(resp.Message.Content) == 0 {
			b.Fatal("no text")
		}
	})
}

// BenchmarkStreamHTTP measures a whole streamed call per chunk against an
// httptest server on loopback: the request, the HTTP client reading the
// body, and the adapter.
func BenchmarkStreamHTTP(b *testing.B) {
	const chunks = 1000
	body := streamBody(chunks)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	m, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	req := &model.Request{Messages: []model.Message{model.UserMessage("Tell me a story.")}}
	ctx := context.Background()
	reportPerChunk(b, chunks, func() {
		if _, err := m.Stream(ctx, req, func(model.Delta) error { return nil }); err != nil {
			b.Fatal(err)
		}
	})
}
