package telemetry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/offshoot-dev/offshoot/internal/otlptest"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// TestOTLPExport sends the story's spans and metrics with the SDK's
// OTLP/HTTP exporters to a loopback receiver, which decodes them.
func TestOTLPExport(t *testing.T) {
	ctx := context.Background()
	r := otlptest.Start(t)
	texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(r.URL+"/v1/traces"))
	require.NoError(t, err)
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(r.URL+"/v1/metrics"))
	require.NoError(t, err)
	res := resource.NewSchemaless(semconv.ServiceName("planstep"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), sdkmetric.WithResource(res))
	story(t, telemetry.Options{TracerProvider: tp, MeterProvider: mp, Provider: "scripted"})
	require.NoError(t, tp.Shutdown(ctx), "the spans are flushed to the receiver")
	require.NoError(t, mp.Shutdown(ctx), "the metrics are flushed to the receiver")

	got := r.Received()
	spans, parents := got.Spans, got.Parents()
	assert.Len(t, spans, 23)
	assert.Equal(t, map[string][]string{
		"invoke_agent demo/planner":        {"(root)"},
		"invoke_agent agents/reviewer":     {"execute_tool dispatch_subagent", "execute_tool dispatch_subagent"},
		"execute_tool dispatch_subagent":   {"invoke_agent demo/planner", "invoke_agent demo/planner"},
		"execute_tool planning_setup_plan": {"invoke_agent demo/planner"},
		"execute_tool planning_read_plan":  {"invoke_agent demo/planner"},
		"execute_tool grep":                {"invoke_agent agents/reviewer"},
		"execute_tool read_file":           {"invoke_agent agents/reviewer", "invoke_agent agents/reviewer"},
		"execute_tool write_file":          {"invoke_agent agents/reviewer", "invoke_agent agents/reviewer"},
	}, withoutChats(parents))
	assert.Len(t, parents["chat scripted"], 11)
	for _, s := range spans {
		op := otlptest.StringAttr(s.Attributes, "gen_ai.operation.name")
		assert.Contains(t, []string{"invoke_agent", "chat", "execute_tool"}, op, s.Name)
		assert.Equal(t, spans[0].TraceId, s.TraceId)
		if op == "chat" {
			assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, s.Kind)
			assert.Equal(t, "scripted", otlptest.StringAttr(s.Attributes, "gen_ai.provider.name"))
		}
		for _, k := range contentKeys {
			assert.Empty(t, otlptest.StringAttr(s.Attributes, k))
		}
	}
	assert.Subset(t, got.Services, []string{"planstep"})
	assert.Equal(t, map[string]string{"gen_ai.client.token.usage": "{token}", "gen_ai.client.operation.duration": "s"}, got.Metrics)
}

func withoutChats(parents map[string][]string) map[string][]string {
	out := map[string][]string{}
	for name, ps := range parents {
		if name != "chat scripted" {
			out[name] = ps
		}
	}
	return out
}
