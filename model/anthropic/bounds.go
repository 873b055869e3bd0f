package anthropic

import (
	"context"

	"github.com/offshoot-dev/offshoot/model/internal/httpcall"
)

// bound returns ctx bounded by the Timeout of a whole call; the cause of
// its end is then a *model.TimeoutError.
func (m *Model) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return httpcall.Bound(ctx, m.cfg.Timeout)
}

// callError is the error a call returns: a bound that fired is said as
// such (which bound, how to change it) rather than as the context error
// or the read error it caused; anything else is redacted.
func (m *Model) callError(ctx context.Context, err error) error {
	return httpcall.CallError(ctx, err, "anthropic", m.redactError)
}

// watch watches one attempt for the StallTimeout (httpcall.Watch).
func (m *Model) watch(ctx context.Context, stream bool) (context.Context, *httpcall.Watch) {
	return httpcall.NewWatch(ctx, m.cfg.StallTimeout, stream, "anthropic: message")
}
