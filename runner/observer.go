package runner

import (
	"context"
	"log/slog"

	"github.com/offshoot-dev/offshoot/bus"
)

// LogObserver logs the runner's events on b with logger, one record per
// event at Info level (Warn for failed model and tool calls), with the
// session id and the envelope's seq. It returns a func that stops it.
func LogObserver(b *bus.Bus, logger *slog.Logger) (stop func()) {
	attrs := func(env bus.Envelope) []slog.Attr {
		return []slog.Attr{slog.String("session", env.SessionID), slog.Uint64("seq", env.Seq)}
	}
	log := func(ctx context.Context, level slog.Level, msg string, env bus.Envelope, more ...slog.Attr) {
		logger.LogAttrs(ctx, level, msg, append(attrs(env), more...)...)
	}
	stops := []func(){
		bus.Subscribe(b, "runner.log.rendered", func(ctx context.Context, env bus.Envelope, e PromptRendered) error {
			log(ctx, slog.LevelInfo, "prompt rendered", env, slog.String("prompt", e.NS+"/"+e.Key), slog.Any("tools", e.Tools))
			return nil
		}),
		bus.Subscribe(b, "runner.log.model", func(ctx context.Context, env bus.Envelope, e ModelCalled) error {
			level := slog.LevelInfo
			more := []slog.Attr{slog.String("prompt", e.NS+"/"+e.Key), slog.String("model", e.Model), slog.Int("turn", e.Turn),
				slog.Duration("duration", e.Duration), slog.Int("tokens", e.Usage.TotalTokens), slog.Any("tool_calls", e.ToolCalls)}
			if e.Error != "" {
				level = slog.LevelWarn
				more = append(more, slog.String("error", e.Error))
			}
			log(ctx, level, "model called", env, more...)
			return nil
		}),
		bus.Subscribe(b, "runner.log.tool", func(ctx context.Context, env bus.Envelope, e ToolInvoked) error {
			level := slog.LevelInfo
			if !e.Success {
				level = slog.LevelWarn
			}
			log(ctx, level, "tool invoked", env, slog.String("tool", e.Name), slog.String("call_id", e.CallID),
				slog.Bool("success", e.Success), slog.Duration("duration", e.Duration))
			return nil
		}),
		bus.Subscribe(b, "runner.log.executed", func(ctx context.Context, env bus.Envelope, e PromptExecuted) error {
			log(ctx, slog.LevelInfo, "prompt executed", env, slog.String("prompt", e.NS+"/"+e.Key), slog.Int("turns", e.Turns),
				slog.Int("tool_calls", e.ToolCalls), slog.Int("tokens", e.Usage.TotalTokens), slog.Duration("duration", e.Duration))
			return nil
		}),
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
