package remote

import (
	"context"
	"net/http"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
)

// propagator carries a job's trace context: W3C trace context and
// baggage, whatever propagator the program set globally (the default
// global one carries nothing).
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// inject puts the trace context of ctx on a job's headers (W3C
// traceparent and tracestate), so that a tracer on the worker continues
// the dispatching trace.
func inject(ctx context.Context, h nats.Header) {
	propagator.Inject(ctx, propagation.HeaderCarrier(http.Header(h)))
}

// extract returns ctx carrying the trace context of a job's headers.
func extract(ctx context.Context, h nats.Header) context.Context {
	return propagator.Extract(ctx, propagation.HeaderCarrier(http.Header(h)))
}
