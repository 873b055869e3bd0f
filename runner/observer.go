package runner

import (
	"context"
	"log/slog"

	"github.com/offshoot-dev/offshoot/bus"
)

// LogObserver logs the runner's events on b with logger, one record per
// event at Info level (Warn for failed model calls, tool calls and
// evaluations), with the session id and the envelope's seq; at Debug level
// it also logs each piece of text (or of a tool call) as the model streams
// it. It returns a func that stops it.
func LogObserver(b *bus.Bus, logger *slog.Logger) (stop func()) {
	return b.SubscribeAll("runner.log", func(ctx context.Context, env bus.Envelope) error {
		level := slog.LevelInfo
		var msg string
		var attrs []slog.Attr
		switch e := env.Payload.(type) {
		case PromptRendered:
			msg = "prompt rendered"
			attrs = []slog.Attr{slog.String("prompt", e.NS+"/"+e.Key), slog.Any("tools", e.Tools)}
		case ModelCalled:
			msg = "model called"
			attrs = []slog.Attr{slog.String("prompt", e.NS+"/"+e.Key), slog.String("model", e.Shown())}
			if e.Route != "" {
				attrs = append(attrs, slog.String("route", e.Route))
			}
			attrs = append(attrs, slog.Int("turn", e.Turn), slog.Duration("duration", e.Duration), slog.Int("tokens", e.Usage.TotalTokens))
			if e.Error != "" {
				level = slog.LevelWarn
				attrs = append(attrs, slog.String("error", e.Error), slog.String("error_type", e.ErrorType))
			}
		case ToolInvoked:
			msg = "tool invoked"
			if !e.Success {
				level = slog.LevelWarn
			}
			attrs = []slog.Attr{slog.String("tool", e.Name), slog.String("call_id", e.CallID),
				slog.Bool("success", e.Success), slog.Duration("duration", e.Duration)}
		case Delta:
			if !logger.Enabled(ctx, slog.LevelDebug) {
				return nil
			}
			level, msg = slog.LevelDebug, "model streaming"
			attrs = []slog.Attr{slog.String("evaluation", e.Evaluation), slog.Int("turn", e.Turn)}
			if e.ToolCall != nil {
				attrs = append(attrs, slog.Int("tool_call", e.ToolCall.Index), slog.String("arguments", e.ToolCall.Arguments))
			} else {
				attrs = append(attrs, slog.String("text", e.Text))
			}
		case PromptExecuted:
			msg = "prompt executed"
			attrs = []slog.Attr{slog.String("prompt", e.NS+"/"+e.Key), slog.Int("turns", e.Turns),
				slog.Int("tool_calls", e.ToolCalls), slog.Int("tokens", e.Usage.TotalTokens), slog.Duration("duration", e.Duration)}
			switch {
			case e.Parked():
				attrs = append(attrs, slog.String("status", e.Status))
			case !e.Succeeded():
				level = slog.LevelWarn
				attrs = append(attrs, slog.String("status", e.Status), slog.String("error", e.Error), slog.String("error_type", e.ErrorType))
			}
		default:
			return nil
		}
		attrs = append([]slog.Attr{slog.String("session", env.SessionID), slog.Uint64("seq", env.Seq)}, attrs...)
		logger.LogAttrs(ctx, level, msg, attrs...)
		return nil
	})
}

// discardLogger is the logger tools get when a Request gives none.
var discardLogger = slog.New(slog.DiscardHandler)
