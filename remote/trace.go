package remote

import (
	"context"
	"net/http"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// inject puts the trace context of ctx on a job's headers (W3C
// traceparent and tracestate, through the program's global propagator —
// nothing when the program set none), so that a tracer on the worker
// continues the dispatching trace.
func inject(ctx context.Context, h nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(http.Header(h)))
}

// extract returns ctx carrying the trace context of a job's headers.
func extract(ctx context.Context, h nats.Header) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, propagation.HeaderCarrier(http.Header(h)))
}
