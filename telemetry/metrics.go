package telemetry

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

	"github.com/offshoot-dev/offshoot/runner"
)

// The bucket boundaries the GenAI conventions advise for their client
// histograms.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// instruments are the conventions' client histograms.
type instruments struct {
	tokens   metric.Int64Histogram   // gen_ai.client.token.usage, {token}
	duration metric.Float64Histogram // gen_ai.client.operation.duration, s
	provider string

	// options holds, by model, the attributes of its points, made once: a
	// program has a handful of models.
	mu      sync.Mutex
	options map[modelKey]*pointOptions
}

// modelKey is what the points say of a model call's model: the id asked
// for, the id that answered, and the server.
type modelKey struct{ request, response, server string }

// pointOptions are the attributes of a model's points: its duration's,
// on success and, by the kind of error, on failure, and its input and
// output tokens'.
type pointOptions struct {
	attrs             []attribute.KeyValue
	ok, input, output []metric.RecordOption
	failed            map[string][]metric.RecordOption
}

// maxModels bounds the model names whose attributes are kept.
const maxModels = 256

func newInstruments(m metric.Meter, provider string) (*instruments, error) {
	tokens, err := genaiconv.NewClientTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	if err != nil {
		return nil, err
	}
	duration, err := genaiconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	return &instruments{tokens: tokens.Inst(), duration: duration.Inst(), provider: provider, options: map[modelKey]*pointOptions{}}, nil
}

// record records a model call: its duration, and the input and output
// tokens it spent when the provider reported them.
func (in *instruments) record(ctx context.Context, e runner.ModelCalled) {
	durationOn, tokensOn := in.duration.Enabled(ctx), in.tokens.Enabled(ctx) && e.Error == "" && !e.Usage.Unreported
	if !durationOn && !tokensOn {
		return
	}
	o := in.optionsFor(modelKey{e.Model, e.ResponseModel, e.Server})
	if durationOn {
		opts := o.ok
		if e.Error != "" {
			opts = in.failed(o, errorType(e))
		}
		in.duration.Record(ctx, e.Duration.Seconds(), opts...)
	}
	if tokensOn {
		in.tokens.Record(ctx, int64(e.Usage.InputTokens), o.input...)
		in.tokens.Record(ctx, int64(e.Usage.OutputTokens), o.output...)
	}
}

// optionsFor returns the attributes of the points of the model k.
func (in *instruments) optionsFor(k modelKey) *pointOptions {
	in.mu.Lock()
	defer in.mu.Unlock()
	if o := in.options[k]; o != nil {
		return o
	}
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat}
	if in.provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(in.provider))
	}
	if k.request != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(k.request))
	}
	if k.response != "" {
		attrs = append(attrs, semconv.GenAIResponseModel(k.response))
	}
	attrs = appendServer(attrs, k.server)
	o := &pointOptions{
		attrs:  attrs,
		ok:     []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs...))},
		input:  with(attrs, semconv.GenAITokenTypeInput),
		output: with(attrs, semconv.GenAITokenTypeOutput),
		failed: map[string][]metric.RecordOption{},
	}
	if len(in.options) < maxModels {
		in.options[k] = o
	}
	return o
}

// failed returns the attributes of a failed call's point on o's model,
// with error.type kind.
func (in *instruments) failed(o *pointOptions, kind string) []metric.RecordOption {
	in.mu.Lock()
	defer in.mu.Unlock()
	if opts, ok := o.failed[kind]; ok {
		return opts
	}
	opts := with(o.attrs, semconv.ErrorTypeKey.String(kind))
	if len(o.failed) < maxModels {
		o.failed[kind] = opts
	}
	return opts
}

// with returns the option of a point with attrs and kv.
func with(attrs []attribute.KeyValue, kv attribute.KeyValue) []metric.RecordOption {
	return []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(append(attrs[:len(attrs):len(attrs)], kv)...))}
}
