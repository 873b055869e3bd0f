package progress

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// ev is an event told to observers, as if session had recorded it.
type ev struct {
	session string
	payload any
}

func tell(t *testing.T, b *bus.Bus, events ...ev) {
	t.Helper()
	for _, e := range events {
		res := b.Publish(context.Background(), bus.Envelope{SessionID: e.session, Payload: e.payload})
		require.NoError(t, res.Err())
	}
}

func text(session string, s string) ev {
	return ev{payload: runner.Delta{SessionID: session, Turn: 1, Delta: model.Delta{Text: s}}}
}

func TestTree(t *testing.T) {
	started := func(agent, session, parent string, depth int) ev {
		return ev{payload: subagent.Started{AgentID: agent, Name: "agents/reviewer", SessionID: session, ParentID: parent, Depth: depth, Mode: "forked"}}
	}
	tests := []struct {
		name   string
		events []ev
		want   string
	}{{
		name: "the main agent: prompt, streamed text, a turn, tool calls, the end",
		events: []ev{
			{"s1", runner.PromptRendered{NS: "demo", Key: "planner", Text: "## 1. Planner\n\nPlan.", Tools: []string{"ls", "read_file"}}},
			text("s1", "Let me"), text("s1", " look."), text("s1", "\nThen"), text("s1", " plan.\n"),
			{"s1", runner.ConversationMessage{Message: model.AssistantMessage("", model.ToolCall{Name: "ls"}, model.ToolCall{Name: "read_file"})}},
			{"s1", runner.ModelCalled{Turn: 1, Model: "gpt-4.1", Route: "main", ResponseModel: "gpt-4.1-2025-04-14", Usage: model.Usage{TotalTokens: 42}, Duration: 1500 * time.Millisecond}},
			{"s1", runner.ToolInvoked{Name: "ls", Arguments: json.RawMessage(`{}`), Result: "2 entries\na\nb", Success: true}},
			{"s1", runner.ToolInvoked{Name: "read_file", Arguments: json.RawMessage(`{"file_path":"x"}`), Result: "no such file", Success: false}},
			{"s1", runner.ContextUsage{Turn: 2, Tokens: 48_640, Window: 128_000}},
			{"s1", runner.ModelCalled{Turn: 2, Route: "main", ResponseModel: "qwen3", Usage: model.Usage{TotalTokens: 1}, Duration: 250 * time.Microsecond}},
			{"s1", runner.PromptExecuted{Turns: 2, ToolCalls: 2, Usage: model.Usage{TotalTokens: 43}, Duration: 2 * time.Second}},
		},
		want: `▸ prompt demo/planner rendered · 3 lines, 20 bytes · 2 tools
▸ model turn 1
  ✎ Let me look.
  ✎ Then plan.
  ↳ calls ls, read_file · gpt-4.1 · 42 tokens · 1.5s
  ✓ ls {} → 2 entries …
  ✗ read_file {"file_path":"x"} → no such file
▸ model turn 2 (qwen3) · answers · 1 token · 38% of context · 0.2ms
▸ done · 2 model turns, 2 tool calls · 43 tokens · 2s
`,
	}, {
		name: "thinking is shown dimmed before the text, and cached tokens on the turn line",
		events: []ev{
			{"s1", runner.Delta{SessionID: "s1", Turn: 1, Delta: model.Delta{Thinking: "The user wants a plan;"}}},
			{"s1", runner.Delta{SessionID: "s1", Turn: 1, Delta: model.Delta{Thinking: " list first."}}},
			text("s1", "Listing.\n"),
			{"s1", runner.ModelCalled{Turn: 1, Model: "claude-sonnet-4-5", Usage: model.Usage{InputTokens: 2000, CachedInputTokens: 1920, CacheWriteTokens: 60, TotalTokens: 2010}, Duration: time.Second}},
			{"s1", runner.Delta{SessionID: "s1", Turn: 2, Delta: model.Delta{Thinking: "Done."}}},
			{"s1", runner.ModelCalled{Turn: 2, Model: "claude-sonnet-4-5", Usage: model.Usage{TotalTokens: 5}, Duration: time.Second}},
		},
		want: `▸ model turn 1
  ∴ The user wants a plan; list first.
  ✎ Listing.
  ↳ answers · claude-sonnet-4-5 · 2010 tokens (1920 cached) · 1s
▸ model turn 2
  ∴ Done.
  ↳ answers · claude-sonnet-4-5 · 5 tokens · 1s
`,
	}, {
		name: "cached input tokens, per call, per agent and for the tree",
		events: []ev{
			started("a1", "c1", "s1", 1),
			{"c1", runner.ModelCalled{Turn: 1, Model: "fake-1", Route: "light", Usage: model.Usage{InputTokens: 2000, CachedInputTokens: 1920, TotalTokens: 2010}, Duration: time.Second}},
			{"c1", subagent.Finished{AgentID: "a1", SessionID: "c1", ParentID: "s1", Depth: 1, Duration: time.Second, ModelCalls: 1, Usage: model.Usage{InputTokens: 2000, CachedInputTokens: 1920, TotalTokens: 2010}}},
			{"s1", runner.PromptExecuted{Turns: 2, ToolCalls: 1, Usage: model.Usage{InputTokens: 2100, CachedInputTokens: 0, TotalTokens: 2120},
				ChildUsage: model.Usage{InputTokens: 2000, CachedInputTokens: 1920, TotalTokens: 2010}, Duration: 3 * time.Second}},
		},
		want: `  ┌ a1 started · agents/reviewer · forked from s1
  │ a1 model turn 1 (fake-1) · answers · 2010 tokens (1920 cached) · 1s
  └ a1 finished in 1s · 1 model turn, 0 tool calls · 2010 tokens (1920 cached)
▸ done · 2 model turns, 1 tool call · 2120 tokens · 4130 tokens (1920 cached) with its agents · 3s
`,
	}, {
		name: "subagents: their own lines, text a line at a time, nested deeper, finished or failed",
		events: []ev{
			started("a1", "c1", "s1", 1),
			started("a2", "c2", "s1", 1),
			text("c1", "half a"), text("c2", "other\nline"), text("c1", " line\n"),
			{"c1", runner.ModelCalled{Turn: 1, Duration: 20 * time.Millisecond}},
			started("a3", "c3", "c1", 2),
			{"c3", runner.ToolInvoked{Name: "grep", Arguments: json.RawMessage(`{}`), Result: "none", Success: true}},
			{payload: subagent.Finished{AgentID: "a3", SessionID: "c3", Duration: 3 * time.Millisecond, ToolCalls: 1, Usage: model.Usage{TotalTokens: 9}}},
			{"c2", runner.PromptExecuted{Turns: 1}},
			{payload: subagent.Finished{AgentID: "a2", SessionID: "c2", Duration: 12 * time.Second, Error: "Subagent task timed out after 600000ms\nmore"}},
			{payload: subagent.Finished{AgentID: "a1", SessionID: "c1", Duration: time.Millisecond, ModelCalls: 1, Usage: model.Usage{TotalTokens: 100}}},
		},
		want: `  ┌ a1 started · agents/reviewer · forked from s1
  ┌ a2 started · agents/reviewer · forked from s1
  │ a2 model turn 1
  │ a2   ✎ other
  │ a1 model turn 1
  │ a1   ✎ half a line
  │ a1   ↳ answers · 0 tokens · 20ms
    ┌ a3 started · agents/reviewer · forked from c1
    │ a3   ✓ grep {} → none
    └ a3 finished in 3.0ms · 0 model turns, 1 tool call · 9 tokens
  │ a2   ✎ line
  └ a2 failed: Subagent task timed out after 600000ms … in 12s · 0 model turns, 0 tool calls · 0 tokens
  └ a1 finished in 1.0ms · 1 model turn, 0 tool calls · 100 tokens
`,
	}, {
		name: "the main agent's evaluation fails: its end says how, and a turn left open is closed",
		events: []ev{
			text("s1", "Half an answer"),
			{"s1", runner.ModelCalled{Turn: 1, Error: "context canceled"}},
			{"s1", runner.PromptExecuted{Turns: 1, Status: "cancelled", ErrorType: "cancelled",
				Error: "runner: evaluating demo/planner failed in the request phase: context canceled", Duration: time.Second}},
			text("s1", "next evaluation"),
		},
		want: `▸ model turn 1
  ✎ Half an answer
  ↳ failed: context canceled
▸ cancelled: runner: evaluating demo/planner failed in the request phase: context canceled · 1 model turn, 0 tool calls · 0 tokens · 1s
▸ model turn 1
  ✎ next evaluation
`,
	}, {
		name: "artifacts and plan marks after a dispatch, not after the agent's own writes",
		events: []ev{
			{"s1", runner.ToolInvoked{Name: "write_file", Arguments: json.RawMessage(`{}`), Result: "created", Success: true}},
			{"s1", vfs.FileWritten{Path: "own.md", Content: "mine"}},
			{"s1", runner.ToolInvoked{Name: "dispatch_subagent", Arguments: json.RawMessage(`{}`), Result: "done", Success: true,
				Value: json.RawMessage(`{"artifacts":["notes/a.md"]}`)}},
			{"s1", vfs.FileWritten{Path: "notes/a.md", Content: strings.Repeat("x", 2048)}},
			{"s1", planning.StepMarked{StepID: "S001", Status: planning.StepDone}},
			{"s1", runner.ModelCalled{Turn: 3}},
			{"s1", planning.StepMarked{StepID: "S002", Status: planning.StepDone}},
		},
		want: `  ✓ write_file {} → created
  ✓ dispatch_subagent {} → done
  ⇠ artifact notes/a.md copied back · 2.0 KiB
  ⚑ plan step S001 marked done
▸ model turn 3 · answers · 0 tokens · 0.0ms
`,
	}, {
		name: "a line streamed by the main agent is closed before another line; text cannot act on the terminal",
		events: []ev{
			text("s1", "Working \x1b[2Jon it"),
			{payload: subagent.TaskNotification{TaskID: "t1", Status: subagent.TaskStatusCompleted, Duration: time.Second}},
			text("s1", " still"),
			{"s1", runner.ModelCalled{Turn: 1, Error: "model: rate limited\nretry later"}},
		},
		want: "▸ model turn 1\n  ✎ Working \uFFFD[2Jon it\n▸ background task t1 completed · 0 tokens · 1s\n  ✎ still\n  ↳ failed: model: rate limited …\n",
	}, {
		name:   "stop ends a line left open",
		events: []ev{text("s1", "cut short")},
		want:   "▸ model turn 1\n  ✎ cut short\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New()
			var out bytes.Buffer
			stop := Tree(b, &out, Options{})
			tell(t, b, tt.events...)
			stop()
			tell(t, b, text("s1", "after stop"))
			assert.Equal(t, tt.want, out.String())
		})
	}
}

func TestTreeColor(t *testing.T) {
	b := bus.New()
	var out bytes.Buffer
	stop := Tree(b, &out, Options{Color: true})
	tell(t, b, ev{"s1", runner.ToolInvoked{Name: "ls", Success: true}}, ev{"s1", runner.ToolInvoked{Name: "rm"}})
	stop()
	assert.Contains(t, out.String(), "\x1b[32m✓\x1b[0m \x1b[1mls\x1b[0m")
	assert.Contains(t, out.String(), "\x1b[31m✗\x1b[0m")
}

// TestTreeParallel publishes the lines of many subagents at once: every
// line printed is whole.
func TestTreeParallel(t *testing.T) {
	b := bus.New()
	var out bytes.Buffer
	stop := Tree(b, &out, Options{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			tell(t, b, ev{payload: subagent.Started{AgentID: id, SessionID: id, ParentID: "s1", Depth: 1, Mode: "fresh"}})
			for range 20 {
				tell(t, b, text(id, "one "), text(id, "line\n"))
			}
			tell(t, b, ev{payload: subagent.Finished{AgentID: id, SessionID: id}})
		}()
	}
	wg.Wait()
	stop()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	assert.Len(t, lines, 8*23)
	for _, l := range lines {
		assert.Regexp(t, `^  (┌ [a-h] started · {2}· fresh|│ [a-h] model turn 1|│ [a-h] {3}✎ one line|└ [a-h] finished in 0\.0ms · 0 model turns, 0 tool calls · 0 tokens)$`, l)
	}
}

func TestDuration(t *testing.T) {
	tests := map[time.Duration]string{
		0:                        "0.0ms",
		420 * time.Microsecond:   "0.4ms",
		12345 * time.Microsecond: "12ms",
		1234 * time.Millisecond:  "1.2s",
		90 * time.Second:         "1m30s",
	}
	for d, want := range tests {
		assert.Equal(t, want, duration(d), d.String())
	}
}

// A model that streams megabytes does not flood the terminal: a turn's
// text is shown up to 64 KiB, then a note says the rest is not shown.
func TestTreeCapsAStreamedAnswer(t *testing.T) {
	b := bus.New()
	var out bytes.Buffer
	stop := Tree(b, &out, Options{})
	chunk := strings.Repeat("word ", 1000) // 5,000 bytes
	for range 2000 {                       // 10 MB in all
		tell(t, b, text("s1", chunk))
	}
	stop()
	assert.Less(t, out.Len(), 70<<10)
	assert.Equal(t, 1, strings.Count(out.String(), "the rest of this answer is not shown here"))
}

func TestTokensSaysWhenUsageIsUnknown(t *testing.T) {
	assert.Equal(t, "12 tokens", tokens(model.Usage{TotalTokens: 12}))
	assert.Equal(t, "usage not reported", tokens(model.Usage{Unreported: true}))
	assert.Equal(t, "at least 12 tokens", tokens(model.Usage{TotalTokens: 12, Unreported: true}))
}

// On a terminal every line fits its width: the models' text is wrapped
// between words, other lines are cut with "…", and long ids are shortened.
func TestTreeFitsTheTerminal(t *testing.T) {
	const (
		parent = "05ef5913-bfe7-4051-95d1-1d6c101757ec"
		child  = "085e7dce-b1f6-4628-a2ea-2fef56927e59"
	)
	events := []ev{
		text("s1", "The billing module has two files; I will "), text("s1", "review each one as a step.\n"),
		{"s1", runner.ModelCalled{Turn: 1, Model: "main", Usage: model.Usage{TotalTokens: 42}}},
		{"s1", runner.ToolInvoked{Name: "read_file", Arguments: json.RawMessage(`{"file_path":"billing/invoice.py","offset":0,"limit":2000}`),
			Result: "billing/invoice.py: lines 1-11 of 11", Success: true}},
		{payload: subagent.Started{AgentID: child, Name: "general-purpose", SessionID: child, ParentID: parent, Depth: 1, Mode: "forked"}},
		text(child, "請求モジュールには二つのファイルがあります。それぞれを確認します。\n"),
		{payload: subagent.TaskNotification{TaskID: child, Status: subagent.TaskStatusCompleted}},
	}
	b := bus.New()
	var out bytes.Buffer
	stop := Tree(b, &out, Options{Width: 40})
	tell(t, b, events...)
	stop()
	assert.Equal(t, `▸ model turn 1
  ✎ The billing module has two files; I
    will review each one as a step.
  ↳ answers · main · 42 tokens · 0.0ms
  ✓ read_file {"file_path":"b… → billin…
  ┌ 085e7dce started · general-purpose …
  │ 085e7dce model turn 1
  │ 085e7dce   ✎ 請求モジュールには二つ
                 のファイルがあります。
                 それぞれを確認します。
▸ background task 085e7dce completed · …
`, out.String())
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		assert.LessOrEqual(t, columns.Width(l), 40, l)
	}

	// Piped, the same events give whole lines and ids.
	b = bus.New()
	out.Reset()
	stop = Tree(b, &out, Options{})
	tell(t, b, events...)
	stop()
	assert.Contains(t, out.String(), "  ✎ The billing module has two files; I will review each one as a step.\n")
	assert.Contains(t, out.String(), "  ┌ "+child+" started · general-purpose · forked from "+parent+"\n")
}

// A session's next evaluation counts its turns from 1 again (chat): each
// turn gets its own opening line, and its own share of the shown text.
func TestTreeTurnsOfTheNextMessage(t *testing.T) {
	b := bus.New()
	var out bytes.Buffer
	stop := Tree(b, &out, Options{})
	tell(t, b, text("s1", "first"), ev{"s1", runner.ModelCalled{Turn: 1}}, text("s1", "second"), ev{"s1", runner.ModelCalled{Turn: 1}},
		ev{"s1", runner.ModelCalled{Turn: 2, Error: "model: timed out"}})
	stop()
	assert.Equal(t, `▸ model turn 1
  ✎ first
  ↳ answers · 0 tokens · 0.0ms
▸ model turn 1
  ✎ second
  ↳ answers · 0 tokens · 0.0ms
▸ model turn 2 failed: model: timed out
`, out.String())
}
