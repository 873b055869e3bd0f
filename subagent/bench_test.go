package subagent_test

import (
	"context"
	"testing"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// BenchmarkRun measures one child run of two turns (a tool call, then the
// answer) as the engine's extensions are switched on: transcripts on
// disk, hooks, and the run in the background (Start and Wait).
func BenchmarkRun(b *testing.B) {
	noStart := func(context.Context, subagent.SubagentStart) (string, error) { return "", nil }
	noStop := func(context.Context, subagent.SubagentStop) (string, error) { return "", nil }
	cases := []struct {
		name       string
		opts       func(b *testing.B) subagent.Options
		background bool
	}{
		{name: "plain", opts: func(*testing.B) subagent.Options { return subagent.Options{} }},
		{name: "hooks", opts: func(*testing.B) subagent.Options {
			return subagent.Options{StartHooks: []subagent.StartHook{noStart}, StopHooks: []subagent.StopHook{noStop}}
		}},
		{name: "transcripts", opts: func(b *testing.B) subagent.Options {
			return subagent.Options{Transcripts: transcript.Dir(b.TempDir())}
		}},
		{name: "background", background: true, opts: func(*testing.B) subagent.Options { return subagent.Options{} }},
		{name: "background+transcripts", background: true, opts: func(b *testing.B) subagent.Options {
			return subagent.Options{Transcripts: transcript.Dir(b.TempDir())}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			parent := newParent(b)
			e := subagent.New(c.opts(b))
			write := writeTool(b)
			b.ReportAllocs()
			for b.Loop() {
				m := scripted.New(scripted.ToolCall("write", `{"text":"x"}`), scripted.Text("done"))
				sp := freshSpec(b, parent, m, write)
				if !c.background {
					if _, err := e.Run(ctx, sp); err != nil {
						b.Fatal(err)
					}
					continue
				}
				task, err := e.Start(ctx, sp)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := task.Wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
