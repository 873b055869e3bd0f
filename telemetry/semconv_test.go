package telemetry_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/offshoot-dev/offshoot/internal/otlptest"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// server is a model on a server, as an OpenAI-compatible one is: it says
// its id and where it is, and answers with the dated id of the model and
// an id of its own.
type server struct {
	*scripted.Model
	n atomic.Int64
}

func (m *server) Describe() model.Description {
	return model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "llm.internal", ServerPort: 8443}
}

func (m *server) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	resp, err := m.Model.Generate(ctx, req)
	if resp != nil {
		resp.Model, resp.ID = "gpt-4.1-2025-04-14", fmt.Sprintf("chatcmpl-%d", m.n.Add(1))
	}
	return resp, err
}

// TestSemanticConventions reads what the exporters send — the protobuf a
// collector receives — and checks each attribute against the conventions'
// names (the semconv package's keys).
func TestSemanticConventions(t *testing.T) {
	ctx := watchdog(t)
	r := otlptest.Start(t)
	texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(r.URL+"/v1/traces"))
	require.NoError(t, err)
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(r.URL+"/v1/metrics"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)))

	s := newSession(t)
	obs, err := telemetry.Observe(s.Bus(), telemetry.Options{TracerProvider: tp, MeterProvider: mp, Provider: "openai"})
	require.NoError(t, err)
	m := &server{Model: scripted.New(
		scripted.When(scripted.LastUserContains("reviewer"), scripted.Text("reviewed")),
		scripted.ToolCall("echo", `{"text":"a"}`), scripted.Text("done"),
		scripted.Fail(&model.APIError{StatusCode: 503, Message: "overloaded"}),
	)}
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "main", echoTool(t, true)), Session: s, Model: m, ModelName: "main", UserMessage: "go"})
	require.NoError(t, err)
	reviewer := agentPrompt(t, "agents", "reviewer")
	_, err = subagent.New(subagent.Options{NewID: counter("agent-")}).Run(ctx, subagent.Spec{Name: "agents/reviewer", Description: "Review the login", Parent: s,
		Request: runner.Request{Prompt: reviewer, UserMessage: "you are the reviewer", Model: m, ModelName: "light"}})
	require.NoError(t, err)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "failing"), Session: s, Model: m, ModelName: "main", UserMessage: "go"})
	require.Error(t, err)
	obs.Stop()
	require.NoError(t, tp.Shutdown(ctx))
	require.NoError(t, mp.Shutdown(ctx))

	got := r.Received()
	spans := map[string][]*tracepb.Span{}
	for _, sp := range got.Spans {
		spans[sp.Name] = append(spans[sp.Name], sp)
	}
	str := func(sp *tracepb.Span, key string) string { return otlptest.StringAttr(sp.Attributes, key) }

	t.Run("chat: the model asked for, the one that answered, the answer, the server", func(t *testing.T) {
		chats := spans["chat gpt-4.1"]
		require.Len(t, chats, 4, "three answers and a failure, named by the model id")
		for _, c := range chats {
			assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, c.Kind)
			assert.Equal(t, "openai", str(c, string(semconv.GenAIProviderNameKey)))
			assert.Equal(t, "gpt-4.1", str(c, string(semconv.GenAIRequestModelKey)))
			assert.Equal(t, "llm.internal", str(c, string(semconv.ServerAddressKey)))
			port, ok := otlptest.IntAttr(c.Attributes, string(semconv.ServerPortKey))
			assert.True(t, ok)
			assert.EqualValues(t, 8443, port)
		}
		assert.Equal(t, "gpt-4.1-2025-04-14", str(chats[0], string(semconv.GenAIResponseModelKey)))
		assert.Equal(t, "chatcmpl-1", str(chats[0], string(semconv.GenAIResponseIDKey)))
		failed := chats[3]
		assert.Equal(t, "http_5xx", str(failed, string(semconv.ErrorTypeKey)), "the kind of error, not _OTHER")
		assert.Empty(t, str(failed, string(semconv.GenAIResponseModelKey)))
	})
	t.Run("invoke_agent: the provider, the model, the agent's description", func(t *testing.T) {
		main := spans["invoke_agent demo/main"]
		require.Len(t, main, 1)
		assert.Equal(t, "openai", str(main[0], string(semconv.GenAIProviderNameKey)))
		assert.Equal(t, "gpt-4.1", str(main[0], string(semconv.GenAIRequestModelKey)))
		rev := spans["invoke_agent agents/reviewer"]
		require.Len(t, rev, 1)
		assert.Equal(t, "Review the login", str(rev[0], string(semconv.GenAIAgentDescriptionKey)))
		assert.Equal(t, "gpt-4.1", str(rev[0], string(semconv.GenAIRequestModelKey)))
		failing := spans["invoke_agent demo/failing"]
		require.Len(t, failing, 1)
		assert.Equal(t, "http_5xx", str(failing[0], string(semconv.ErrorTypeKey)), "the model call's kind of error")
	})
	t.Run("execute_tool: the tool's description, the kind of error", func(t *testing.T) {
		echo := spans["execute_tool echo"]
		require.Len(t, echo, 1)
		assert.Equal(t, "Echo the text back.", str(echo[0], string(semconv.GenAIToolDescriptionKey)))
		assert.Equal(t, "tool_error", str(echo[0], string(semconv.ErrorTypeKey)))
	})
	t.Run("the scope says its version", func(t *testing.T) {
		require.NotEmpty(t, got.Scopes)
		for _, sc := range got.Scopes {
			assert.Equal(t, "github.com/offshoot-dev/offshoot/telemetry", sc.Name)
			assert.NotEmpty(t, sc.Version)
		}
	})
	t.Run("metrics: the same model attributes, the kind of error", func(t *testing.T) {
		points := got.Points["gen_ai.client.operation.duration"]
		require.NotEmpty(t, points)
		kinds := map[string]bool{}
		for _, attrs := range points {
			assert.Equal(t, "gpt-4.1", otlptest.StringAttr(attrs, string(semconv.GenAIRequestModelKey)))
			assert.Equal(t, "llm.internal", otlptest.StringAttr(attrs, string(semconv.ServerAddressKey)))
			kinds[otlptest.StringAttr(attrs, string(semconv.ErrorTypeKey))] = true
		}
		assert.Equal(t, map[string]bool{"": true, "http_5xx": true}, kinds)
		for _, attrs := range got.Points["gen_ai.client.token.usage"] {
			assert.Equal(t, "gpt-4.1-2025-04-14", otlptest.StringAttr(attrs, string(semconv.GenAIResponseModelKey)))
		}
	})
}
