package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
)

// sharedBytes is how many bytes of req's messages are a prefix of prev's:
// the whole messages they begin with alike.
func sharedBytes(prev, req []model.Message) (shared, total int) {
	same := true
	for i, m := range req {
		n := len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
		total += n
		if same && i < len(prev) && prev[i].Role == m.Role && prev[i].Content == m.Content && prev[i].ToolCallID == m.ToolCallID &&
			len(prev[i].ToolCalls) == len(m.ToolCalls) {
			shared += n
		} else {
			same = false
		}
	}
	return shared, total
}

// BenchmarkLongChat runs the 2,000-question chat of
// TestLongChatNeverOverflows (tool results of 1 to 50 KB, a 64k window)
// with clearing and compaction, and the same chat unmanaged on a model
// with no window. It reports the input tokens the managed chat sends as a
// share of the unmanaged one's, and the share of each request's bytes
// that are a prefix of the previous request's (what a provider's prompt
// cache serves).
func BenchmarkLongChat(b *testing.B) {
	const turns = 2000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for b.Loop() {
		var prev []model.Message
		shared, total := 0, 0
		managed := &windowModel{window: 64_000, requests: func(req *model.Request, _ int) {
			s, t := sharedBytes(prev, req.Messages)
			shared, total = shared+s, total+t
			prev = append(prev[:0], req.Messages...)
		}}
		chat(b, ctx, newSession(b), chatPrompt(b), managed, turns, runner.ContextOptions{ClearToolResults: 3})
		unmanaged := &windowModel{}
		chat(b, ctx, newSession(b), chatPrompt(b), unmanaged, turns, runner.ContextOptions{Manual: true})
		b.ReportMetric(100*float64(managed.inputTokens+managed.summaryTokens)/float64(unmanaged.inputTokens), "%-input-tokens")
		b.ReportMetric(100*float64(shared)/float64(total), "%-prefix-shared")
		b.ReportMetric(float64(managed.summaries), "compactions")
	}
}
