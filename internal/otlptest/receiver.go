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

	refuse string // a path answered 404
	mu     sync.Mutex
	got    Export
}

// Export is what a Receiver was sent.
type Export struct {
	Spans    []*tracepb.Span
	Services []string          // the service.name of each export's resource
	Metrics  map[string]string // each metric's name → its unit
	// Resources are the attributes of each export's resource; Scopes the
	// instrumentation scopes of the spans and metrics.
	Resources [][]*commonpb.KeyValue
	Scopes    []*commonpb.InstrumentationScope
	// Points are, by metric name, the attributes of each data point of a
	// histogram.
	Points map[string][][]*commonpb.KeyValue
}

// Start starts a receiver, stopped when t ends.
func Start(t testing.TB) *Receiver { return start(t, "") }

// StartWithout starts a receiver that answers 404 Not Found for one
// signal, "traces" or "metrics", as a backend that takes only the other
// does (Jaeger takes no metrics).
func StartWithout(t testing.TB, signal string) *Receiver { return start(t, "/v1/"+signal) }

func start(t testing.TB, refuse string) *Receiver {
	t.Helper()
	r := &Receiver{refuse: refuse, got: Export{Metrics: map[string]string{}, Points: map[string][][]*commonpb.KeyValue{}}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Received returns what the receiver was sent so far.
func (r *Receiver) Received() Export {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Export{Spans: append([]*tracepb.Span(nil), r.got.Spans...), Services: append([]string(nil), r.got.Services...), Metrics: map[string]string{},
		Resources: append([][]*commonpb.KeyValue(nil), r.got.Resources...), Scopes: append([]*commonpb.InstrumentationScope(nil), r.got.Scopes...),
		Points: map[string][][]*commonpb.KeyValue{}}
	for k, v := range r.got.Metrics {
		out.Metrics[k] = v
	}
	for k, v := range r.got.Points {
		out.Points[k] = append([][]*commonpb.KeyValue(nil), v...)
	}
	return out
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == r.refuse {
		http.NotFound(w, req)
		return
	}
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
			r.got.Resources = append(r.got.Resources, rs.Resource.GetAttributes())
			for _, ss := range rs.ScopeSpans {
				r.got.Scopes = append(r.got.Scopes, ss.Scope)
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
			r.got.Resources = append(r.got.Resources, rm.Resource.GetAttributes())
			for _, sm := range rm.ScopeMetrics {
				r.got.Scopes = append(r.got.Scopes, sm.Scope)
				for _, m := range sm.Metrics {
					r.got.Metrics[m.Name] = m.Unit
					for _, dp := range m.GetHistogram().GetDataPoints() {
						r.got.Points[m.Name] = append(r.got.Points[m.Name], dp.Attributes)
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

// IntAttr is the integer value of key among kvs, and whether it is there.
func IntAttr(kvs []*commonpb.KeyValue, key string) (int64, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			v, ok := kv.Value.GetValue().(*commonpb.AnyValue_IntValue)
			if !ok {
				return 0, false
			}
			return v.IntValue, true
		}
	}
	return 0, false
}
