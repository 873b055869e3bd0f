package telemetry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// epoch is where the story's clock stands.
var epoch = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

// providers are an SDK tracer provider exporting to memory, synchronously,
// and a meter provider read by hand.
type providers struct {
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newProviders(t testing.TB) *providers {
	t.Helper()
	p := &providers{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	p.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(p.spans))
	p.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(p.reader))
	t.Cleanup(func() {
		_ = p.tp.Shutdown(context.Background())
		_ = p.mp.Shutdown(context.Background())
	})
	return p
}

func (p *providers) options() telemetry.Options {
	return telemetry.Options{TracerProvider: p.tp, MeterProvider: p.mp, Provider: "scripted"}
}

// metrics collects the histograms recorded so far, by name.
func (p *providers) metrics(t testing.TB) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, p.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name+" "+m.Unit] = m.Data
		}
	}
	return out
}

// counter returns ids prefix1, prefix2, …
func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s%d", prefix, n.Add(1)) }
}

// story runs the planstep story — a planner dispatching two reviewers in
// parallel — with telemetry on the parent's bus, and returns the
// subagents' Started events.
func story(t testing.TB, opts telemetry.Options) []subagent.Started {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clock := stepClock()
	parent, err := session.New(session.WithIDGenerator(counter("s")), session.WithBus(bus.New(bus.WithClock(clock))))
	require.NoError(t, err)
	defer parent.Close()
	engine := subagent.New(subagent.Options{NewID: counter("agent-"), Clock: clock})
	reg, err := billing.Prompts(engine)
	require.NoError(t, err)
	planner, err := reg.Lookup(billing.PlannerNS, billing.PlannerKey)
	require.NoError(t, err)
	require.NoError(t, billing.Seed(ctx, parent, planner))

	var started []subagent.Started
	startedCh := make(chan subagent.Started, 8)
	stopStarted, err := bus.Subscribe(parent.Bus(), "test", func(_ context.Context, _ bus.Envelope, e subagent.Started) error {
		startedCh <- e
		return nil
	})
	require.NoError(t, err)
	defer stopStarted()
	obs, err := telemetry.Observe(parent.Bus(), opts)
	require.NoError(t, err)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: planner, Session: parent, Model: billing.Script(), ModelName: "scripted",
		UserMessage: "Review the billing module."})
	require.NoError(t, err, "the story must run; the watchdog is a minute")
	obs.Stop()
	close(startedCh)
	for e := range startedCh {
		started = append(started, e)
	}
	return started
}

// tree renders spans as an indented tree, one span a line with its
// attributes, children in start order (then by name and attributes), so
// that it reads the same whatever order parallel subagents ran in. ids
// replaces attribute values (agent and session ids) that depend on that
// order.
func tree(spans tracetest.SpanStubs, ids map[string]string) string {
	byParent := map[string][]tracetest.SpanStub{}
	known := map[string]bool{}
	for _, s := range spans {
		known[s.SpanContext.SpanID().String()] = true
	}
	for _, s := range spans {
		p := s.Parent.SpanID().String()
		if !s.Parent.IsValid() || !known[p] {
			p = ""
		}
		byParent[p] = append(byParent[p], s)
	}
	line := func(s tracetest.SpanStub) string {
		attrs := make([]string, 0, len(s.Attributes))
		for _, kv := range s.Attributes {
			v := kv.Value.Emit()
			if kv.Value.Type() == attribute.STRINGSLICE {
				v = "[" + strings.Join(kv.Value.AsStringSlice(), ",") + "]"
			}
			if r, ok := ids[v]; ok {
				v = r
			}
			attrs = append(attrs, string(kv.Key)+"="+v)
		}
		slices.Sort(attrs)
		out := s.Name + " {" + strings.Join(attrs, " ") + "}"
		if s.Status.Code.String() == "Error" {
			out += " ERROR: " + s.Status.Description
		}
		if len(s.Links) > 0 {
			out += fmt.Sprintf(" (%d link)", len(s.Links))
		}
		return out
	}
	var b strings.Builder
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := byParent[parent]
		slices.SortStableFunc(kids, func(a, c tracetest.SpanStub) int {
			if d := a.StartTime.Compare(c.StartTime); d != 0 {
				return d
			}
			return strings.Compare(line(a)+subtree(byParent, a, line), line(c)+subtree(byParent, c, line))
		})
		for _, s := range kids {
			b.WriteString(strings.Repeat("  ", depth) + line(s) + "\n")
			walk(s.SpanContext.SpanID().String(), depth+1)
		}
	}
	walk("", 0)
	return b.String()
}

// subtree is the text of s's descendants, to order siblings that start
// together.
func subtree(byParent map[string][]tracetest.SpanStub, s tracetest.SpanStub, line func(tracetest.SpanStub) string) string {
	var b strings.Builder
	for _, k := range byParent[s.SpanContext.SpanID().String()] {
		b.WriteString(line(k) + subtree(byParent, k, line))
	}
	return b.String()
}

// attr returns the attribute key of s as a string, "" when it has none.
func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

// intAttr returns the integer attribute key of s, 0 when it has none.
func intAttr(s tracetest.SpanStub, key string) int {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return int(kv.Value.AsInt64())
		}
	}
	return 0
}

func jsonValid(s string) bool { return json.Valid([]byte(s)) }
