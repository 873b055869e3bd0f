package telemetry_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// Observe a session's bus: each evaluation becomes an invoke_agent span,
// each model call a chat span under it. A program exports them with an
// OTLP exporter (otlptracehttp) instead of keeping them in memory.
func ExampleObserve() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())

	s, _ := session.New()
	defer s.Close()
	obs, err := telemetry.Observe(s.Bus(), telemetry.Options{TracerProvider: tp, Provider: "scripted"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer obs.Stop()

	p, _ := prompt.New("demo", "greeter", prompt.Markdown[prompt.NoParams]("Role", "Greet the user."))
	_, err = runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: scripted.New(scripted.Text("Hello!")), ModelName: "scripted", UserMessage: "Hi"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, span := range spans.GetSpans() {
		fmt.Println(span.Name)
	}
	// Output:
	// chat scripted
	// invoke_agent demo/greeter
}
