package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
)

// BenchmarkDecideCompaction is what deciding whether to compact costs a
// turn: the next request's size from the last reported one and the two
// messages added since (a 25 KB tool result and a short user message),
// against the threshold — with a model's tokenizer and with the ratio.
func BenchmarkDecideCompaction(b *testing.B) {
	for _, id := range []string{"gpt-4.1", "llama-3.1-8b"} {
		b.Run(id, func(b *testing.B) {
			msgs := []model.Message{model.SystemMessage("You answer questions by reading files.")}
			for i := range 100 {
				call := model.ToolCall{ID: fmt.Sprint("c", i), Name: "read", Arguments: `{"n":1}`}
				msgs = append(msgs, model.UserMessage(fmt.Sprint("question ", i)), model.AssistantMessage("", call),
					model.ToolMessage(call.ID, "read", strings.Repeat("line of a file: the quick brown fox\n", 700)), model.AssistantMessage("I read it."))
			}
			r := &run{resp: &Response{Messages: msgs}}
			r.cx.est = newEstimator(id)
			r.cx.limit = 100_000
			r.cx.known, r.cx.knownAt = 50_000, len(msgs)-2
			b.ReportAllocs()
			for b.Loop() {
				if err := r.manageContext(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
