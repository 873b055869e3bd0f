package runcmd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/offshoot-dev/offshoot/internal/otlptest"
)

// TestRunSendsTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT set, run sends
// the run's traces and metrics over OTLP/HTTP before it ends — the
// subagents under the calls that started them, the background task
// linked to its launching call.
func TestRunSendsTelemetry(t *testing.T) {
	c := otlptest.Start(t)
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	for k, v := range map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": c.URL, "OTEL_SERVICE_NAME": "offshoot-test"} {
		f.vars[k] = v
		t.Setenv(k, v) // the exporters read the process's environment
	}
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
	assert.Empty(t, f.stderr.String())

	got := c.Received()
	parentOf := got.Parent
	names := map[string]int{}
	for _, s := range got.Spans {
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
	assert.Contains(t, got.Services, "offshoot-test")
	for _, res := range got.Resources {
		assert.NotEmpty(t, otlptest.StringAttr(res, string(semconv.ServiceVersionKey)), "the resource says offshoot's version")
	}
	assert.Contains(t, got.Metrics, "gen_ai.client.token.usage")
	assert.Contains(t, got.Metrics, "gen_ai.client.operation.duration")
}

// TestRunWithoutTelemetry: with no OTLP endpoint set, run sends nothing.
func TestRunWithoutTelemetry(t *testing.T) {
	c := otlptest.Start(t)
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	f.vars["OTEL_TRACES_EXPORTER"] = "none"
	f.vars["OTEL_METRICS_EXPORTER"] = "none"
	f.vars["OTEL_EXPORTER_OTLP_ENDPOINT"] = c.URL
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
	f.vars = map[string]string{"HOME": f.vars["HOME"], "OFFSHOOT_SCRIPTED_MODEL": f.vars["OFFSHOOT_SCRIPTED_MODEL"]}
	require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
	got := c.Received()
	assert.Empty(t, got.Spans)
	assert.Empty(t, got.Metrics)
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

// TestRunSaysWhichSignalTheEndpointRefuses: a backend that takes traces
// but not metrics (Jaeger) answers 404 for them; the warning says so and
// how to stop sending them, and the traces still arrive.
func TestRunSaysWhichSignalTheEndpointRefuses(t *testing.T) {
	for _, tt := range []struct{ refused, variable, other string }{
		{"metrics", "OTEL_METRICS_EXPORTER", "traces"},
		{"traces", "OTEL_TRACES_EXPORTER", "metrics"},
	} {
		t.Run(tt.refused, func(t *testing.T) {
			c := otlptest.StartWithout(t, tt.refused)
			f := newFixture(t, map[string]string{"README.md": "hello\n"})
			f.script(t, story)
			f.vars["OTEL_EXPORTER_OTLP_ENDPOINT"] = c.URL
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.URL)
			require.NoError(t, f.run(t, context.Background(), &run{task: "What is in this project?"}), f.stderr.String())
			stderr := f.stderr.String()
			assert.Contains(t, stderr, "this endpoint does not take "+tt.refused+": set "+tt.variable+"=none")
			assert.NotContains(t, stderr, "check that a collector listens")
			assert.Equal(t, 1, strings.Count(stderr, "warning: telemetry: "), "one warning: %s", stderr)
			got := c.Received()
			if tt.other == "traces" {
				assert.NotEmpty(t, got.Spans)
			} else {
				assert.NotEmpty(t, got.Metrics)
			}
		})
	}
}
