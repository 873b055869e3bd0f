package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/offshoot-dev/offshoot/telemetry"
)

// receiver is an OTLP/HTTP collector on loopback that decodes what it is
// sent.
type receiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string
	metrics map[string]string // name → unit
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{metrics: map[string]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var in coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range in.ResourceSpans {
			r.service = append(r.service, stringAttr(rs.Resource.Attributes, "service.name"))
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var in colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range in.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.GetHistogram() != nil {
						r.metrics[m.Name] = m.Unit
					}
				}
			}
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// received returns the spans received, and the names of the parents of
// each span, by name: "invoke_agent agents/reviewer" → its parents' names.
func (r *receiver) received() (spans []*tracepb.Span, parents map[string][]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byID := map[string]*tracepb.Span{}
	for _, s := range r.spans {
		byID[string(s.SpanId)] = s
	}
	parents = map[string][]string{}
	for _, s := range r.spans {
		p := "(root)"
		if len(s.ParentSpanId) > 0 {
			p = "(unknown)"
			if ps := byID[string(s.ParentSpanId)]; ps != nil {
				p = ps.Name
			}
		}
		parents[s.Name] = append(parents[s.Name], p)
	}
	return r.spans, parents
}

func stringAttr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

// TestOTLPExport sends the story's spans and metrics with the SDK's
// OTLP/HTTP exporters to a loopback receiver, which decodes them.
func TestOTLPExport(t *testing.T) {
	ctx := context.Background()
	r := newReceiver(t)
	texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(r.srv.URL+"/v1/traces"))
	require.NoError(t, err)
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(r.srv.URL+"/v1/metrics"))
	require.NoError(t, err)
	res := resource.NewSchemaless(semconv.ServiceName("planstep"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), sdkmetric.WithResource(res))
	story(t, telemetry.Options{TracerProvider: tp, MeterProvider: mp, Provider: "scripted"})
	require.NoError(t, tp.Shutdown(ctx), "the spans are flushed to the receiver")
	require.NoError(t, mp.Shutdown(ctx), "the metrics are flushed to the receiver")

	spans, parents := r.received()
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
		op := stringAttr(s.Attributes, "gen_ai.operation.name")
		assert.Contains(t, []string{"invoke_agent", "chat", "execute_tool"}, op, s.Name)
		assert.Equal(t, spans[0].TraceId, s.TraceId)
		if op == "chat" {
			assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, s.Kind)
			assert.Equal(t, "scripted", stringAttr(s.Attributes, "gen_ai.provider.name"))
		}
		for _, k := range contentKeys {
			assert.Empty(t, stringAttr(s.Attributes, k))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	assert.Subset(t, r.service, []string{"planstep"})
	assert.Equal(t, map[string]string{"gen_ai.client.token.usage": "{token}", "gen_ai.client.operation.duration": "s"}, r.metrics)
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
