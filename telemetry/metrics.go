package telemetry

import (
	"context"

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
}

func newInstruments(m metric.Meter) (instruments, error) {
	tokens, err := genaiconv.NewClientTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	if err != nil {
		return instruments{}, err
	}
	duration, err := genaiconv.NewClientOperationDuration(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return instruments{}, err
	}
	return instruments{tokens: tokens.Inst(), duration: duration.Inst()}, nil
}

// record records a model call: its duration, and the input and output
// tokens it spent when the provider reported them.
func (in instruments) record(ctx context.Context, provider string, e runner.ModelCalled) {
	durationOn, tokensOn := in.duration.Enabled(ctx), in.tokens.Enabled(ctx) && e.Error == "" && !e.Usage.Unreported
	if !durationOn && !tokensOn {
		return
	}
	var buf [6]attribute.KeyValue
	attrs := append(buf[:0], semconv.GenAIOperationNameChat)
	if provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(provider))
	}
	if e.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(e.Model), semconv.GenAIResponseModel(e.Model))
	}
	if durationOn {
		da := attrs
		if e.Error != "" {
			da = append(da, semconv.ErrorTypeKey.String(errorTypeOther))
		}
		in.duration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(da...))
	}
	if tokensOn {
		n := len(attrs)
		in.tokens.Record(ctx, int64(e.Usage.InputTokens), metric.WithAttributes(append(attrs[:n:n], semconv.GenAITokenTypeInput)...))
		in.tokens.Record(ctx, int64(e.Usage.OutputTokens), metric.WithAttributes(append(attrs[:n:n], semconv.GenAITokenTypeOutput)...))
	}
}
