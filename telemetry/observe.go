// Package telemetry reports what offshoot's agents do as OpenTelemetry
// traces and metrics, on the GenAI semantic conventions that Jaeger,
// Grafana Tempo, Langfuse, Phoenix and Datadog read.
//
// It is an observer of a bus: Observe subscribes to the events the runner
// and the subagent engine publish, and turns them into spans and metric
// points with the TracerProvider and MeterProvider it is given. Nothing in
// the evaluations changes, and a bus nobody observes costs nothing.
//
// The spans of one run form a tree:
//
//	invoke_agent demo/planner                 one evaluation
//	├── chat scripted                         one model call
//	├── execute_tool dispatch_subagent        one tool call
//	│   └── invoke_agent agents/reviewer      the subagent it delegated to
//	│       ├── chat scripted
//	│       └── execute_tool read_file
//	└── chat scripted
//
// A subagent's invoke_agent span is a child of the execute_tool span of
// the call that delegated it (dispatch_subagent or Task); a background
// task's also links to that call, which it outlives. An evaluation whose
// publisher's context carries a span — a program's own, or one a remote
// worker restored from a job's headers — is a child of that span. Span
// times are the events' times, on the bus's clock.
//
// Spans hold no message content — no prompts, answers, tool arguments or
// results — unless Options.RecordContent is set, as the conventions advise.
// The metrics are the conventions' histograms gen_ai.client.token.usage and
// gen_ai.client.operation.duration, one point (two for tokens) per model
// call.
package telemetry

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/version"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
)

// instrumentation names the spans' tracer and the metrics' meter.
const instrumentation = "github.com/offshoot-dev/offshoot/telemetry"

// Options configure an Observer. The zero value reports to the global
// providers (otel.GetTracerProvider, otel.GetMeterProvider) without
// content.
type Options struct {
	// TracerProvider makes the spans (the global one when nil).
	TracerProvider trace.TracerProvider
	// MeterProvider makes the histograms (the global one when nil).
	MeterProvider metric.MeterProvider
	// Provider is the gen_ai.provider.name of the model calls, which the
	// conventions require: "openai" for an OpenAI-compatible server,
	// "anthropic", or a name of your own. Left out when empty (the runner's
	// records name a model, not who serves it).
	Provider string
	// RecordContent records what the agents read and write: the system
	// instructions and the messages of each model call
	// (gen_ai.system_instructions, gen_ai.input.messages,
	// gen_ai.output.messages) and each tool call's arguments and result
	// (gen_ai.tool.call.arguments, gen_ai.tool.call.result). Off by
	// default: prompts and tool results may hold what a trace backend
	// should not keep.
	RecordContent bool
}

// Observer turns one bus's events into spans and metric points. Create it
// with Observe and end it with Stop. Its methods are safe for concurrent
// use.
type Observer struct {
	bus     *bus.Bus
	tracer  trace.Tracer
	metrics *instruments
	opts    Options
	unsubs  []func()

	mu       sync.Mutex
	stopped  bool
	evals    map[evalKey]*evaluation
	calls    map[callKey]*toolCall
	children map[string]*child // by the child's session id
	// lastCall is, by session, the span of the tool call recorded last
	// there; launched, by child session, the span of the call that
	// launched a background task the engine has not said it started.
	lastCall map[string]trace.SpanContext
	launched map[string]trace.SpanContext
	// ended holds the spans of the calls that returned in the evaluations
	// still open, for a background task the engine says it started after
	// its launching call returned.
	ended map[callKey]trace.SpanContext
	names map[[2]string]string // span names, by operation and target
	tools map[string]string    // the descriptions of the tools offered, by name
	// reasons holds the finish_reasons attributes made; scratch the
	// attributes of the chat span being started.
	reasons map[model.FinishReason]attribute.KeyValue
	scratch []attribute.KeyValue
	// fill is, by session, how full the window of the model call about to
	// be recorded was (runner.ContextUsage, recorded just before it).
	fill map[string]runner.ContextUsage
}

// Observe attaches an observer to b that reports its agents' work to the
// providers opts gives, until Stop. It subscribes to the runner's and the
// subagent engine's records only — never to the streamed pieces of an
// answer, so the runner does not stream because of it.
func Observe(b *bus.Bus, opts Options) (*Observer, error) {
	if b == nil {
		return nil, errors.New("telemetry: Observe needs the bus to observe; pass the session's (Session.Bus)")
	}
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m, err := newInstruments(mp.Meter(instrumentation, metric.WithSchemaURL(semconv.SchemaURL), metric.WithInstrumentationVersion(version.Get())), opts.Provider)
	if err != nil {
		return nil, err
	}
	o := &Observer{
		bus: b, opts: opts, metrics: m,
		tracer: tp.Tracer(instrumentation, trace.WithSchemaURL(semconv.SchemaURL), trace.WithInstrumentationVersion(version.Get())),
		evals:  map[evalKey]*evaluation{}, calls: map[callKey]*toolCall{}, children: map[string]*child{},
		lastCall: map[string]trace.SpanContext{}, launched: map[string]trace.SpanContext{}, ended: map[callKey]trace.SpanContext{},
		names: map[[2]string]string{}, tools: map[string]string{}, reasons: map[model.FinishReason]attribute.KeyValue{},
	}
	if err := o.subscribe(); err != nil {
		o.Stop()
		return nil, err
	}
	return o, nil
}

// subscribe registers the observer's handlers on its bus.
func (o *Observer) subscribe() error {
	const name = "telemetry"
	for _, sub := range []func() (func(), error){
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.promptRendered)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.message)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.contextUsage)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.modelCalled)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.toolInvoked)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.promptExecuted)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.subagentStarted)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.taskStarted)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.subagentFinished)) },
		func() (func(), error) { return bus.Subscribe(o.bus, name, locked(o, o.toolsOffered)) },
	} {
		unsub, err := sub()
		if err != nil {
			return err
		}
		o.unsubs = append(o.unsubs, unsub)
	}
	return nil
}

// locked is a handler of the observer's: it runs under the observer's
// lock, and not at all once the observer stopped.
func locked[E any](o *Observer, handle func(context.Context, bus.Envelope, E) error) func(context.Context, bus.Envelope, E) error {
	return func(ctx context.Context, env bus.Envelope, e E) error {
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.stopped {
			return nil
		}
		return handle(ctx, env, e)
	}
}

// Stop detaches the observer from its bus and ends the spans still open —
// evaluations that still run — as errors, at the bus's time. It is idempotent. Flush and shut down
// the providers afterwards (their Shutdown methods) so that what was
// recorded is exported.
func (o *Observer) Stop() {
	for _, unsub := range o.unsubs {
		unsub()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	o.stopped = true
	now := o.bus.Now()
	for key, ev := range o.evals {
		o.endEvaluation(key, ev, now, errStopped, errorTypeStopped)
	}
	clear(o.children)
	clear(o.launched)
}

// CallContext returns ctx carrying the span of the tool call callID made
// in the session sessionID while that call runs, so that work the call
// hands on carries the trace along: propagate it with a propagator —
// propagation.TraceContext{}.Inject(ctx, carrier) — and where the work
// runs, extract it into the context its evaluation runs with; the
// Observer there makes that evaluation's span a child of the call's. It
// returns ctx itself when the call is unknown (no evaluation is traced on
// the observer's bus that made it, or it has returned).
func (o *Observer) CallContext(ctx context.Context, sessionID, callID string) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.calls[callKey{sessionID, callID}]
	if o.stopped || c == nil {
		return ctx
	}
	span := o.callSpan(c, o.bus.Now())
	return trace.ContextWithSpanContext(ctx, span.SpanContext())
}

// errStopped ends the spans Stop finds open.
var errStopped = errors.New("telemetry stopped before the evaluation finished")

// evalKey identifies an evaluation: its id is unique in its session.
type evalKey struct{ session, eval string }

// callKey identifies a tool call: by the session of the evaluation that
// made it and the id the model gave it.
type callKey struct{ session, call string }

// evaluation is an evaluation being traced.
type evaluation struct {
	span trace.Span
	ctx  context.Context // carries span, for its children
	// mark is the time of the evaluation's latest model or tool call
	// record: the earliest a tool call that has not returned can have
	// started.
	mark  time.Time
	calls []string // ids of the calls its model made that have not returned
	ended []string // ids of the calls that returned
	// modelSet says the span has its gen_ai.request.model: the model of
	// its first call.
	modelSet bool

	// With Options.RecordContent: the messages so far, and the answer of
	// the model call being recorded.
	messages []contentMessage
	answer   *contentMessage
}

// toolCall is a tool call the model made that has not returned.
type toolCall struct {
	eval   evalKey
	callID string
	name   string
	span   trace.Span // nil until a child needs it or the call returns
}

// child is a subagent the engine started on the bus.
type child struct {
	parent      callKey           // call "" when a program's own code started it
	parentSpan  trace.SpanContext // the delegating call's span, once known
	agentID     string
	name        string
	description string
	background  bool
}
