package tools_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/offshoot-dev/offshoot/tools"
)

// BenchmarkCallDecodeValidate measures a whole Call of a tool with a
// two-field parameter struct and a trivial handler: defaults copied,
// arguments decoded strictly and validated, the handler called, the
// outcome worded. Target: ≤ 1.5 µs and ≤ 15 allocations.
func BenchmarkCallDecodeValidate(b *testing.B) {
	tool := newLs(b, func(context.Context, *tools.Invocation, lsParams) (tools.Result[lsResult], error) {
		return tools.Result[lsResult]{Message: "ok", Success: true}, nil
	})
	args := json.RawMessage(`{"path":"src/main","limit":20}`)
	inv := &tools.Invocation{CallID: "call_1", Logger: slog.New(slog.DiscardHandler)} // as the runner passes it
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if out := tool.Call(ctx, inv, args); !out.Success {
			b.Fatal(out.Text)
		}
	}
}
