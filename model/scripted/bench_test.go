package scripted_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// BenchmarkGenerate measures one scripted turn against conversations of
// growing length: the cost should stay flat in the number of messages.
func BenchmarkGenerate(b *testing.B) {
	for _, k := range []int{10, 1000} {
		b.Run(fmt.Sprintf("messages=%d", k), func(b *testing.B) {
			req := &model.Request{Messages: []model.Message{model.SystemMessage("You are an agent.")}}
			for i := range k {
				req.Messages = append(req.Messages, model.UserMessage(fmt.Sprintf("message %d", i)))
			}
			newModel := func() *scripted.Model {
				return scripted.New(
					scripted.When(scripted.LastUserContains("never"), scripted.Text("no")),
					scripted.Repeat(scripted.ToolCall("echo", `{"text":"hi"}`)),
				)
			}
			m := newModel()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%1024 == 0 { // a run is short: do not let the call log grow without bound
					m = newModel()
				}
				if _, err := m.Generate(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStream measures what the scripted model adds per streamed
// piece: a 1,000-word answer delivered word by word.
func BenchmarkStream(b *testing.B) {
	const words = 1000
	text := strings.TrimSpace(strings.Repeat("word ", words))
	req := &model.Request{Messages: []model.Message{model.UserMessage("Tell me a story.")}}
	m := scripted.New(scripted.Repeat(scripted.Text(text)))
	n := 0
	fn := func(d model.Delta) error {
		n += len(d.Text)
		return nil
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	calls := 0
	for b.Loop() {
		if calls%1024 == 0 { // keep the call log short
			m = scripted.New(scripted.Repeat(scripted.Text(text)))
		}
		if _, err := m.Stream(ctx, req, fn); err != nil {
			b.Fatal(err)
		}
		calls++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls*words), "ns/chunk")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(calls*words), "allocs/chunk")
}
