package mcp_test

import (
	"testing"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// BenchmarkCall measures one tool call round trip, through the SDK's
// in-memory transport and to a command server over its standard input and
// output.
func BenchmarkCall(b *testing.B) {
	for _, bb := range []struct {
		name string
		cfg  func(b *testing.B) mcp.ServerConfig
	}{
		{"in-memory", func(b *testing.B) mcp.ServerConfig { return inMemory(b) }},
		{"stdio", func(b *testing.B) mcp.ServerConfig { return stdioConfig(b) }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			m := newManager(b, map[string]mcp.ServerConfig{"s": bb.cfg(b)})
			tool, ok := toolsOf(b, m, "s").Lookup("mcp__s__echo")
			if !ok {
				b.Fatal("no echo tool")
			}
			args := []byte(`{"text":"hello"}`)
			b.ReportAllocs()
			for b.Loop() {
				if out := tool.Call(ctx, nil, args); !out.Success {
					b.Fatal(out.Text)
				}
			}
		})
	}
}

// BenchmarkStart measures starting a command server and listing its tools,
// then stopping it: what the first Tools call of a run and Close cost.
func BenchmarkStart(b *testing.B) {
	cfg := map[string]mcp.ServerConfig{"s": stdioConfig(b)}
	for b.Loop() {
		m, err := mcp.NewManager(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ts, err := m.Tools(ctx, "s")
		if err != nil || ts.Len() == 0 {
			b.Fatal(err, m.Warnings())
		}
		if err := m.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
