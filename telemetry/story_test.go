package telemetry_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden span trees in testdata")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// contentKeys are the attributes that hold what the agents read and wrote.
var contentKeys = []string{"gen_ai.system_instructions", "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}

// TestStorySpanTree checks the exact span tree of the planstep story: the
// planner's invoke_agent span with its model calls and tool calls, each
// reviewer's invoke_agent span under the dispatch_subagent call that
// delegated it, the conventions' attributes, and no content.
func TestStorySpanTree(t *testing.T) {
	p := newProviders(t)
	started := story(t, p.options())
	spans := p.spans.GetSpans()

	require.Len(t, started, 2)
	ids := map[string]string{}
	for _, s := range started {
		ids[s.AgentID], ids[s.SessionID] = "AGENT", "SESSION"
	}
	golden(t, "story.txt", tree(spans, ids))

	// Each reviewer is the child of the call that delegated it, with the
	// engine's agent id and its own session as its conversation.
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	for _, st := range started {
		var found bool
		for _, s := range spans {
			if attr(s, "gen_ai.agent.id") != st.AgentID {
				continue
			}
			found = true
			call := byID[s.Parent.SpanID()]
			assert.Equal(t, "execute_tool dispatch_subagent", call.Name)
			assert.Equal(t, st.CallID, attr(call, "gen_ai.tool.call.id"))
			assert.Equal(t, st.SessionID, attr(s, "gen_ai.conversation.id"))
		}
		assert.True(t, found, "a span for agent %s", st.AgentID)
	}
	for _, s := range spans {
		assert.Equal(t, spans[0].SpanContext.TraceID(), s.SpanContext.TraceID(), "one trace")
		assert.False(t, s.EndTime.Before(s.StartTime), s.Name)
		for _, k := range contentKeys {
			assert.Empty(t, attr(s, k), "%s holds %s without RecordContent", s.Name, k)
		}
	}
}

// TestStoryRecordsContentWhenAskedTo: with RecordContent, the spans hold
// the instructions, the messages and the tool calls' arguments and
// results.
func TestStoryRecordsContentWhenAskedTo(t *testing.T) {
	p := newProviders(t)
	opts := p.options()
	opts.RecordContent = true
	story(t, opts)
	seen := map[string]int{}
	for _, s := range p.spans.GetSpans() {
		for _, k := range contentKeys {
			if v := attr(s, k); v != "" {
				seen[s.Name+" "+k]++
				assert.True(t, jsonValid(v) || strings.HasPrefix(k, "gen_ai.tool.call.result"), "%s %s: %s", s.Name, k, v)
			}
		}
	}
	assert.Equal(t, map[string]int{
		"invoke_agent demo/planner gen_ai.system_instructions":        1,
		"invoke_agent demo/planner gen_ai.output.messages":            1,
		"invoke_agent agents/reviewer gen_ai.system_instructions":     2,
		"invoke_agent agents/reviewer gen_ai.output.messages":         2,
		"chat scripted gen_ai.input.messages":                         11,
		"chat scripted gen_ai.output.messages":                        11,
		"execute_tool planning_setup_plan gen_ai.tool.call.arguments": 1,
		"execute_tool planning_setup_plan gen_ai.tool.call.result":    1,
		"execute_tool planning_read_plan gen_ai.tool.call.arguments":  1,
		"execute_tool planning_read_plan gen_ai.tool.call.result":     1,
		"execute_tool dispatch_subagent gen_ai.tool.call.arguments":   2,
		"execute_tool dispatch_subagent gen_ai.tool.call.result":      2,
		"execute_tool grep gen_ai.tool.call.arguments":                1,
		"execute_tool grep gen_ai.tool.call.result":                   1,
		"execute_tool read_file gen_ai.tool.call.arguments":           2,
		"execute_tool read_file gen_ai.tool.call.result":              2,
		"execute_tool write_file gen_ai.tool.call.arguments":          2,
		"execute_tool write_file gen_ai.tool.call.result":             2,
	}, seen)
	for _, s := range p.spans.GetSpans() {
		if s.Name == "invoke_agent demo/planner" {
			assert.Contains(t, attr(s, "gen_ai.output.messages"), "Both steps are done")
		}
	}
}

// TestStoryMetrics: one duration point per model call, and its input and
// output tokens, in the conventions' units and buckets.
func TestStoryMetrics(t *testing.T) {
	p := newProviders(t)
	story(t, p.options())
	var in, out int64
	var calls uint64
	for _, s := range p.spans.GetSpans() {
		if strings.HasPrefix(s.Name, "chat ") {
			calls++
			in += int64(intAttr(s, "gen_ai.usage.input_tokens"))
			out += int64(intAttr(s, "gen_ai.usage.output_tokens"))
		}
	}
	m := p.metrics(t)
	tokens, ok := m["gen_ai.client.token.usage {token}"].(metricdata.Histogram[int64])
	require.True(t, ok, "gen_ai.client.token.usage in {token}: %v", m)
	sums := map[string]int64{}
	for _, dp := range tokens.DataPoints {
		typ, _ := dp.Attributes.Value("gen_ai.token.type")
		op, _ := dp.Attributes.Value("gen_ai.operation.name")
		prov, _ := dp.Attributes.Value("gen_ai.provider.name")
		mod, _ := dp.Attributes.Value("gen_ai.request.model")
		assert.Equal(t, "chat", op.AsString())
		assert.Equal(t, "scripted", prov.AsString())
		assert.Equal(t, "scripted", mod.AsString())
		assert.Equal(t, calls, dp.Count)
		assert.Equal(t, []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}, dp.Bounds)
		sums[typ.AsString()] = dp.Sum
	}
	assert.Equal(t, map[string]int64{"input": in, "output": out}, sums)
	duration, ok := m["gen_ai.client.operation.duration s"].(metricdata.Histogram[float64])
	require.True(t, ok, "gen_ai.client.operation.duration in s: %v", m)
	require.Len(t, duration.DataPoints, 1)
	assert.Equal(t, calls, duration.DataPoints[0].Count)
	assert.Equal(t, []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}, duration.DataPoints[0].Bounds)
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to write it")
	assert.Equal(t, string(want), got)
}

// stepClock returns a clock that advances a second each time it is read.
func stepClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return epoch.Add(time.Duration(n.Add(1)-1) * time.Second) }
}
