// Package otlptest is an OpenTelemetry collector for tests: an OTLP/HTTP
// receiver on loopback that decodes the spans and metrics it is sent.
package otlptest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver takes OTLP/HTTP exports (protobuf) at URL+"/v1/traces" and
// URL+"/v1/metrics".
type Receiver struct {
	URL string

	mu  sync.Mutex
	got Export
}

// Export is what a Receiver was sent.
type Export struct {
	Spans    []*tracepb.Span
	Services []string          // the service.name of each export's resource
	Metrics  map[string]string // each metric's name → its unit
}

// Start starts a receiver, stopped when t ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{got: Export{Metrics: map[string]string{}}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Received returns what the receiver was sent so far.
func (r *Receiver) Received() Export {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Export{Spans: append([]*tracepb.Span(nil), r.got.Spans...), Services: append([]string(nil), r.got.Services...), Metrics: map[string]string{}}
	for k, v := range r.got.Metrics {
		out.Metrics[k] = v
	}
	return out
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
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
			r.got.Services = append(r.got.Services, StringAttr(rs.Resource.GetAttributes(), "service.name"))
			for _, ss := range rs.ScopeSpans {
				r.got.Spans = append(r.got.Spans, ss.Spans...)
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
					r.got.Metrics[m.Name] = m.Unit
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

// Parent names the parent of s among the export's spans: "(root)" when s
// has none, "(unknown)" when it was not received.
func (e Export) Parent(s *tracepb.Span) string {
	if len(s.ParentSpanId) == 0 {
		return "(root)"
	}
	for _, p := range e.Spans {
		if string(p.SpanId) == string(s.ParentSpanId) {
			return p.Name
		}
	}
	return "(unknown)"
}

// Parents lists, by span name, the names of the parents of the spans of
// that name: "invoke_agent agents/reviewer" → its parents' names.
func (e Export) Parents() map[string][]string {
	out := map[string][]string{}
	for _, s := range e.Spans {
		out[s.Name] = append(out[s.Name], e.Parent(s))
	}
	return out
}

// StringAttr is the string value of key among kvs, or "".
func StringAttr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}
