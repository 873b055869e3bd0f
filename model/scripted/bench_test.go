package scripted_test

import (
	"fmt"
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
