package runcmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP receiver on loopback that decodes the spans
// and notes the metrics it is sent.
type collector struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	service []string
	metrics []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var resp proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		var in coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range in.ResourceSpans {
			for _, kv := range rs.Resource.Attributes {
				if kv.Key == "service.name" {
					c.service = append(c.service, kv.Value.GetStringValue())
				}
			}
			for _, ss := range rs.ScopeSpans {
				c.spans = append(c.spans, ss.Spans...)
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
					c.metrics = append(c.metrics, m.Name)
				}
			}
		}
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, r)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// TestRunSendsTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT set, run sends
// the run's traces and metrics over OTLP/HTTP before it ends — the
// subagents under the calls that started them, the background task
// linked to its launching call.
func TestRunSendsTelemetry(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	for k, v := range map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_SERVICE_NAME": "offshoot-test"} {
		f.vars[k] = v
		t.Setenv(k, v) // the exporters read the process's environment
	}
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
	assert.Empty(t, f.stderr.String())

	c.mu.Lock()
	defer c.mu.Unlock()
	byID := map[string]*tracepb.Span{}
	for _, s := range c.spans {
		byID[string(s.SpanId)] = s
	}
	parentOf := func(s *tracepb.Span) string {
		if p := byID[string(s.ParentSpanId)]; p != nil {
			return p.Name
		}
		return ""
	}
	names := map[string]int{}
	for _, s := range c.spans {
		names[s.Name]++
		switch s.Name {
		case "invoke_agent offshoot/worker":
			assert.Equal(t, "execute_tool dispatch_subagent", parentOf(s))
		case "invoke_agent general-purpose":
			assert.Equal(t, "execute_tool Task", parentOf(s))
			require.Len(t, s.Links, 1, "a background task links to its launching call")
			assert.Equal(t, s.ParentSpanId, s.Links[0].SpanId)
		case "execute_tool dispatch_subagent", "execute_tool Task":
			assert.Equal(t, "invoke_agent offshoot/main", parentOf(s))
		}
	}
	// The task; then, when the background task reported after the task's
	// evaluation ended, a second one reading the report.
	assert.Contains(t, []int{1, 2}, names["invoke_agent offshoot/main"])
	assert.Equal(t, 1, names["invoke_agent offshoot/worker"])
	assert.Equal(t, 1, names["invoke_agent general-purpose"])
	assert.Contains(t, c.service, "offshoot-test")
	assert.Subset(t, c.metrics, []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration"})
}

// TestRunWithoutTelemetry: with no OTLP endpoint set, run sends nothing.
func TestRunWithoutTelemetry(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	f.vars["OTEL_TRACES_EXPORTER"] = "none"
	f.vars["OTEL_METRICS_EXPORTER"] = "none"
	f.vars["OTEL_EXPORTER_OTLP_ENDPOINT"] = srv.URL
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
	f.vars = map[string]string{"HOME": f.vars["HOME"], "OFFSHOOT_SCRIPTED_MODEL": f.vars["OFFSHOOT_SCRIPTED_MODEL"]}
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Empty(t, c.spans)
	assert.Empty(t, c.metrics)
}

// TestRunWarnsWhenTheCollectorIsDown: a collector that cannot be reached
// costs a warning and at most the flush's bound at the end, never the
// run.
func TestRunWarnsWhenTheCollectorIsDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	f.vars["OTEL_EXPORTER_OTLP_ENDPOINT"] = url
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}))
	assert.Contains(t, f.stderr.String(), "warning: telemetry: ")
	assert.Equal(t, 1, strings.Count(f.stderr.String(), "warning: telemetry: "), "one warning: %s", f.stderr.String())
}
