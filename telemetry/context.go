package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
)

// The attributes of a chat span that say how full the model's context
// window was: the request's and the answer's tokens, and the window.
const (
	attrContextTokens = attribute.Key("offshoot.context.tokens")
	attrContextWindow = attribute.Key("offshoot.context.window")
)

// contextUsage keeps how full the window of the model call recorded next
// on the session is.
func (o *Observer) contextUsage(_ context.Context, env bus.Envelope, e runner.ContextUsage) error {
	if o.fill == nil {
		o.fill = map[string]runner.ContextUsage{}
	}
	o.fill[env.SessionID] = e
	return nil
}

// appendContext appends to attrs how full the window of call e was, when
// its ContextUsage came before it.
func (o *Observer) appendContext(attrs []attribute.KeyValue, session string, e runner.ModelCalled) []attribute.KeyValue {
	u, ok := o.fill[session]
	if !ok {
		return attrs
	}
	delete(o.fill, session)
	if u.Evaluation != e.Evaluation || u.Turn != e.Turn {
		return attrs
	}
	return append(attrs, attrContextTokens.Int(u.Tokens), attrContextWindow.Int(u.Window))
}
