package cli

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/version"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// telemetryFlush bounds how long a command waits, when it ends, for its
// traces and metrics to reach the collector.
const telemetryFlush = 5 * time.Second

// Telemetry reports the work of the agents on b as OpenTelemetry traces
// and metrics over OTLP/HTTP, as the standard OTEL_* variables say: on
// when OTEL_EXPORTER_OTLP_ENDPOINT is set (or a signal's own,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT),
// off otherwise and with OTEL_SDK_DISABLED=true; OTEL_TRACES_EXPORTER=none
// or OTEL_METRICS_EXPORTER=none turns one signal off. The exporters read
// the other variables themselves (headers, timeout, compression,
// certificates), and OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name
// the service ("offshoot" by default). The spans hold no message content.
// The returned func stops reporting and sends what is left, waiting
// telemetryFlush at most; it warns on standard error when the collector
// could not be reached. With telemetry off it does nothing.
func (e *Env) Telemetry(ctx context.Context, b *bus.Bus, provider string) (stop func(), err error) {
	set := func(k string) bool { return strings.TrimSpace(e.Getenv(k)) != "" }
	off := func(k string) bool { return strings.EqualFold(strings.TrimSpace(e.Getenv(k)), "none") }
	if strings.EqualFold(strings.TrimSpace(e.Getenv("OTEL_SDK_DISABLED")), "true") {
		return func() {}, nil
	}
	traces := (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) && !off("OTEL_TRACES_EXPORTER")
	metrics := (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")) && !off("OTEL_METRICS_EXPORTER")
	if !traces && !metrics {
		return func() {}, nil
	}
	if p := strings.TrimSpace(e.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "http/protobuf" {
		e.Warn("OTEL_EXPORTER_OTLP_PROTOCOL=%s: offshoot sends OTLP over HTTP (http/protobuf) only; point the endpoint at the collector's HTTP port (4318)", Printable(p))
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName("offshoot"), semconv.ServiceVersion(version.Get())),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, Usagef("OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME: %v; fix the variable or unset it", err)
	}
	// One warning for each signal an endpoint refuses, and one for any
	// other failure.
	var warnMu sync.Mutex
	warned := map[string]bool{}
	warn := func(err error) {
		var r *refusedError
		key := ""
		if errors.As(err, &r) {
			key = r.signal
		}
		warnMu.Lock()
		defer warnMu.Unlock()
		if warned[key] {
			return
		}
		warned[key] = true
		if r != nil {
			v := strings.ToUpper(r.signal)
			e.Warn("telemetry: this endpoint does not take %s: set OTEL_%s_EXPORTER=none to send none, or point OTEL_EXPORTER_OTLP_%s_ENDPOINT "+
				"at a collector that takes them (%v)", r.signal, v, v, r.err)
			return
		}
		e.Warn("telemetry: %v; check that a collector listens where OTEL_EXPORTER_OTLP_ENDPOINT says (this run's traces and metrics may be missing)", err)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(warn))
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	opts := telemetry.Options{Provider: provider}
	var shutdowns []func(context.Context) error
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, Usagef("OTEL_EXPORTER_OTLP_ENDPOINT: cannot export traces: %v; fix the OTEL_EXPORTER_OTLP_* variables or unset them", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExporter{exp}), sdktrace.WithResource(res))
		opts.TracerProvider, shutdowns = tp, append(shutdowns, tp.Shutdown)
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			shutdownAll(shutdowns)
			return nil, Usagef("OTEL_EXPORTER_OTLP_ENDPOINT: cannot export metrics: %v; fix the OTEL_EXPORTER_OTLP_* variables or unset them", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExporter{exp})), sdkmetric.WithResource(res))
		opts.MeterProvider, shutdowns = mp, append(shutdowns, mp.Shutdown)
	}
	if opts.TracerProvider == nil {
		opts.TracerProvider = tracenoop.NewTracerProvider()
	}
	if opts.MeterProvider == nil {
		opts.MeterProvider = metricnoop.NewMeterProvider()
	}
	obs, err := telemetry.Observe(b, opts)
	if err != nil {
		shutdownAll(shutdowns)
		return nil, Failf("telemetry: %v", err)
	}
	return func() {
		obs.Stop()
		if err := shutdownAll(shutdowns); err != nil {
			warn(err)
		}
	}, nil
}

// Provider is the gen_ai.provider.name of the models run and chat use:
// "openai", as every configured model speaks the OpenAI API, or
// "scripted" for the scripted model of ScriptEnv.
func (e *Env) Provider() string {
	if e.Getenv(ScriptEnv) != "" {
		return "scripted"
	}
	return "openai"
}

// shutdownAll flushes and shuts the providers down, telemetryFlush at
// most.
func shutdownAll(shutdowns []func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryFlush)
	defer cancel()
	var errs []error
	for _, shutdown := range shutdowns {
		errs = append(errs, shutdown(ctx))
	}
	return errors.Join(errs...)
}

// refusedError is an export the endpoint refused with 404 Not Found: it
// does not take that signal (Jaeger takes traces, not metrics).
type refusedError struct {
	signal string // "traces" or "metrics"
	err    error
}

func (r *refusedError) Error() string { return r.err.Error() }
func (r *refusedError) Unwrap() error { return r.err }

// refused marks err as a refusal of signal when the endpoint answered
// 404 Not Found. The OTLP/HTTP exporters say the status in their error's
// text only ("failed to send to URL: 404 Not Found (body: …)").
func refused(signal string, err error) error {
	if err != nil && strings.Contains(err.Error(), " 404 Not Found") {
		return &refusedError{signal: signal, err: err}
	}
	return err
}

// spanExporter and metricExporter pass exports on, saying which signal an
// endpoint refused.
type spanExporter struct{ sdktrace.SpanExporter }

func (x spanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	return refused("traces", x.SpanExporter.ExportSpans(ctx, spans))
}

type metricExporter struct{ sdkmetric.Exporter }

func (x metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	return refused("metrics", x.Exporter.Export(ctx, rm))
}
