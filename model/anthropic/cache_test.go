package anthropic_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
)

// marker is how a cache breakpoint is written, always last in its block.
const marker = `,"cache_control":{"type":"ephemeral"}`

// loopTools are the tools of the scripted runs: a few KB, as real
// toolsets are.
func loopTools() []model.ToolSpec {
	var out []model.ToolSpec
	for i := range 6 {
		out = append(out, model.ToolSpec{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat(fmt.Sprintf("Tool %d does its part of the job. ", i), 20),
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string","description":"Where."}},"required":["path"]}`)})
	}
	return out
}

// loopAnswers answers turns tool-calling turns, then "Finished.".
func loopAnswers(turns int) func([]byte) anthropictest.Turn {
	return func(body []byte) anthropictest.Turn {
		n := bytes.Count(body, []byte(`"tool_result"`))
		if n >= turns-1 {
			return anthropictest.Turn{Text: "Finished."}
		}
		return anthropictest.Turn{Text: fmt.Sprintf("Step %d.", n+1), ToolCalls: []model.ToolCall{{ID: fmt.Sprintf("toolu_%02d", n+1), Name: "tool_1", Arguments: `{"path":"src/` + fmt.Sprint(n) + `"}`}}}
	}
}

// runLoop runs a turns-turn tool loop against srv and returns the final
// request's conversation.
func runLoop(ctx context.Context, t testing.TB, do call, m *anthropic.Model, turns int) {
	t.Helper()
	req := &model.Request{Messages: []model.Message{model.SystemMessage("You are a careful engineer. " + strings.Repeat("Follow the house rules. ", 60)), model.UserMessage("Fix the build.")},
		Tools: loopTools()}
	toolLoop(ctx, t, do, m, req, strings.Repeat("a line of the tool's output\n", 40))
}

// Every request of a scripted 20-turn run extends the previous one byte
// for byte up to the previous one's newest breakpoint (with the marks
// left out, which the provider does not cache on): what the provider
// caches is served again.
func TestRenderingIsByteStableAcrossTurns(t *testing.T) {
	ctx := watchdog(t)
	for how, do := range calls {
		t.Run(how, func(t *testing.T) {
			srv := anthropictest.NewServer()
			defer srv.Close()
			srv.Answer = loopAnswers(20)
			runLoop(ctx, t, do, newModel(t, srv, anthropic.Config{}), 20)
			bodies := srv.Bodies()
			require.Len(t, bodies, 20)
			for i := 1; i < len(bodies); i++ {
				prev, next := bodies[i-1], bodies[i]
				newest := bytes.LastIndex(prev, []byte(marker))
				require.Positive(t, newest, "request %d has a breakpoint", i)
				want := bytes.ReplaceAll(prev[:newest], []byte(marker), nil)
				got := bytes.ReplaceAll(next, []byte(marker), nil)
				require.True(t, bytes.HasPrefix(got, want), "request %d does not extend request %d up to its newest breakpoint", i+1, i)
				assert.LessOrEqual(t, bytes.Count(next, []byte(`"cache_control"`)), 4, "request %d has at most 4 breakpoints", i+1)
			}
		})
	}
}

// In a 20-turn loop every turn after the first reads the previous turn's
// prefix from the cache, and the usage says so.
func TestLoopReadsThePreviousTurnFromTheCache(t *testing.T) {
	ctx := watchdog(t)
	srv := anthropictest.NewServer()
	defer srv.Close()
	srv.Answer = loopAnswers(20)
	var total model.Usage
	m := newModel(t, srv, anthropic.Config{})
	counting := callCounting(&total)
	runLoop(ctx, t, counting, m, 20)
	billed := srv.Billed()
	require.Len(t, billed, 20)
	assert.Zero(t, billed[0].CacheReadInputTokens)
	assert.Positive(t, billed[0].CacheCreationInputTokens)
	for i, b := range billed[1:] {
		assert.Greater(t, b.CacheReadInputTokens, billed[i].CacheReadInputTokens, "turn %d reads more than turn %d", i+2, i+1)
	}
	var reads, writes int
	for _, b := range billed {
		reads += b.CacheReadInputTokens
		writes += b.CacheCreationInputTokens
	}
	assert.Equal(t, reads, total.CachedInputTokens, "cache reads reach model.Usage")
	assert.Equal(t, writes, total.CacheWriteTokens, "cache writes reach model.Usage")

	off := anthropictest.NewServer()
	defer off.Close()
	off.Answer = loopAnswers(20)
	var uncached model.Usage
	runLoop(ctx, t, callCounting(&uncached), newModel(t, off, anthropic.Config{NoCache: true}), 20)
	ratio := cost(total) / cost(uncached)
	t.Logf("20-turn loop: cost %.1f%% of caching off", 100*ratio)
	assert.LessOrEqual(t, ratio, 0.25)
}

// callCounting is Generate, adding each call's usage to total.
func callCounting(total *model.Usage) call {
	return func(ctx context.Context, m *anthropic.Model, req *model.Request) (*model.Response, string, error) {
		r, err := m.Generate(ctx, req)
		if r != nil {
			*total = total.Add(r.Usage)
		}
		return r, "", err
	}
}

// forkHistory is a caller's conversation: 20 turns, about 50 KB.
func forkHistory() []model.Message {
	out := []model.Message{model.SystemMessage("You keep the ledger. " + strings.Repeat("Round half to even. ", 50))}
	per := 50_000 / 40
	for i := range 20 {
		out = append(out,
			model.UserMessage(fmt.Sprintf("Step %d: %s", i+1, strings.Repeat("the ledger rounds a total; ", per/27))),
			model.AssistantMessage(fmt.Sprintf("Done with step %d: %s", i+1, strings.Repeat("noted the rounding rule. ", per/25))))
	}
	return append(out, model.UserMessage("Check the ledger."))
}

// forkWorkflow runs the delegating workflow: the caller's request, then
// children fork-context children whose first request is the caller's
// conversation and a delegation, each answering in two turns, then the
// caller's last turn. It returns the usage of the children's calls and of
// all calls.
func forkWorkflow(ctx context.Context, t testing.TB, m *anthropic.Model, children int) (kids, all model.Usage) {
	t.Helper()
	caller := &model.Request{Messages: forkHistory(), Tools: loopTools()}
	resp, err := m.Generate(ctx, caller)
	require.NoError(t, err)
	all = all.Add(resp.Usage)
	for i := range children {
		child := &model.Request{Tools: caller.Tools, Messages: append(append([]model.Message(nil), caller.Messages...),
			model.UserMessage(fmt.Sprintf("You are now a subagent. Check part %d of the ledger for rounding errors.", i+1)))}
		for {
			r, err := m.Generate(ctx, child)
			require.NoError(t, err)
			kids, all = kids.Add(r.Usage), all.Add(r.Usage)
			if len(r.Message.ToolCalls) == 0 {
				break
			}
			child.Messages = append(child.Messages, r.Message, model.ToolMessage(r.Message.ToolCalls[0].ID, "tool_1", "ledger part looks fine"))
		}
	}
	caller.Messages = append(caller.Messages, resp.Message)
	for _, c := range resp.Message.ToolCalls {
		caller.Messages = append(caller.Messages, model.ToolMessage(c.ID, c.Name, "No rounding errors in this part."))
	}
	resp, err = m.Generate(ctx, caller)
	require.NoError(t, err)
	return kids, all.Add(resp.Usage)
}

// forkAnswers answers the caller with children Task calls, each child
// with one tool call then its findings, and the caller at last.
func forkAnswers(children int) func([]byte) anthropictest.Turn {
	return func(body []byte) anthropictest.Turn {
		switch {
		case bytes.Contains(body, []byte(`"name":"Task"`)):
			return anthropictest.Turn{Text: "All parts checked."}
		case bytes.Contains(body, []byte("You are now a subagent")) && bytes.Contains(body, []byte(`"tool_result"`)):
			return anthropictest.Turn{Text: "No rounding errors in this part."}
		case bytes.Contains(body, []byte("You are now a subagent")):
			return anthropictest.Turn{ToolCalls: []model.ToolCall{{ID: "toolu_look", Name: "tool_1", Arguments: `{"path":"ledger"}`}}}
		}
		var calls []model.ToolCall
		for i := range children {
			calls = append(calls, model.ToolCall{ID: fmt.Sprintf("toolu_task_%d", i+1), Name: "Task", Arguments: fmt.Sprintf(`{"prompt":"Check part %d."}`, i+1)})
		}
		return anthropictest.Turn{Text: "I will split the check.", ToolCalls: calls}
	}
}

// cost is a usage in input-token equivalents: cache reads at 0.1, writes
// at 1.25, the rest at 1.
func cost(u model.Usage) float64 {
	plain := u.InputTokens - u.CachedInputTokens - u.CacheWriteTokens
	return float64(plain) + 0.1*float64(u.CachedInputTokens) + 1.25*float64(u.CacheWriteTokens)
}

// Five fork-context children of a caller with a 20-turn, 50 KB
// conversation read at least 90% of their input from the cache, and the
// workflow costs at most 30% of what it costs with caching off.
func TestForkChildrenReadTheCallersPrefix(t *testing.T) {
	ctx := watchdog(t)
	run := func(cfg anthropic.Config) (kids, all model.Usage) {
		srv := anthropictest.NewServer()
		defer srv.Close()
		srv.Answer = forkAnswers(5)
		return forkWorkflow(ctx, t, newModel(t, srv, cfg), 5)
	}
	kids, all := run(anthropic.Config{})
	_, off := run(anthropic.Config{NoCache: true})
	read := float64(kids.CachedInputTokens) / float64(kids.InputTokens)
	ratio := cost(all) / cost(off)
	t.Logf("children: %d input tokens, %.1f%% read from the cache; workflow cost %.1f%% of caching off", kids.InputTokens, 100*read, 100*ratio)
	assert.GreaterOrEqual(t, read, 0.90)
	assert.LessOrEqual(t, ratio, 0.30)
	assert.Zero(t, off.CachedInputTokens+off.CacheWriteTokens, "nothing is cached with NoCache")
}

// A prefix under the minimum is not cached, and a written prefix expires
// after its time to live: the fake bills like the API.
func TestServerBillsLikeAnthropic(t *testing.T) {
	ctx := watchdog(t)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	srv := anthropictest.NewServer()
	defer srv.Close()
	srv.Now = func() time.Time { return now }
	m := newModel(t, srv, anthropic.Config{})
	short := &model.Request{Messages: []model.Message{model.SystemMessage("Short."), model.UserMessage("Hi")}}
	long := &model.Request{Messages: []model.Message{model.SystemMessage(strings.Repeat("A long system prompt. ", 400)), model.UserMessage("Hi")}}
	tests := []struct {
		name          string
		req           *model.Request
		advance       time.Duration
		read, written bool
	}{
		{"short: not cached", short, 0, false, false},
		{"short again: still not", short, 0, false, false},
		{"long: written", long, 0, false, true},
		{"long again: read", long, time.Minute, true, false},
		{"long after the TTL: written again", long, 6 * time.Minute, false, true},
	}
	for _, tt := range tests {
		now = now.Add(tt.advance)
		resp, err := m.Generate(ctx, tt.req)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.read, resp.Usage.CachedInputTokens > 0, tt.name)
		assert.Equal(t, tt.written, resp.Usage.CacheWriteTokens > 0, tt.name)
	}
}

// A program's own mark (model.Message.Cache) is a breakpoint too, and the
// long TTL marks the tools and system prompt for an hour.
func TestProgramMarkAndLongCache(t *testing.T) {
	ctx := watchdog(t)
	srv := anthropictest.NewServer()
	defer srv.Close()
	m := newModel(t, srv, anthropic.Config{LongCache: true})
	doc := model.UserMessage("Here is the document: " + strings.Repeat("text ", 100))
	doc.Cache = true
	_, err := m.Generate(ctx, &model.Request{Messages: []model.Message{model.SystemMessage("Sys."), doc,
		model.AssistantMessage("Read it."), model.UserMessage("Q1"), model.AssistantMessage("A1"), model.UserMessage("Q2")}})
	require.NoError(t, err)
	body := string(srv.Bodies()[0])
	assert.Contains(t, body, `{"type":"text","text":"Sys.","cache_control":{"type":"ephemeral","ttl":"1h"}}`)
	assert.Contains(t, body, `text text ","cache_control":{"type":"ephemeral"}}`, "the program's mark")
	assert.Contains(t, body, `{"type":"text","text":"Q1","cache_control":{"type":"ephemeral"}}`, "where the previous request ended")
	assert.Contains(t, body, `{"type":"text","text":"Q2","cache_control":{"type":"ephemeral"}}`, "the newest message")
	assert.Equal(t, 4, strings.Count(body, `"cache_control"`))
}
