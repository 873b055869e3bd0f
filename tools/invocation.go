package tools

import (
	"log/slog"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
)

// Invocation is the environment of one tool call, built by the runner for
// each call. The call's deadline and cancellation are the ctx's. Handlers
// read it and must not change it.
type Invocation struct {
	// Session is the session the runner evaluates against. Read state
	// from it; change it only by returning events in the Result.
	Session *session.Session
	// Bus is the session's bus, for observers that want progress events.
	Bus *bus.Bus
	// CallID is the id the model gave the call.
	CallID string
	// PromptNS and PromptKey identify the prompt that made the call.
	PromptNS, PromptKey string
	// Tools is the calling prompt's rendered toolset, for tools that hand
	// work on (such as subagent dispatch).
	Tools Toolset
	// Model is the model answering the calling evaluation, and ModelName
	// what the runner calls it: a tool that starts work of its own on the
	// same model (a subagent that inherits its parent's) uses them.
	Model     model.Model
	ModelName string
	// CacheKey is the calling evaluation's prompt cache key (see
	// runner.Request.CacheKey): an evaluation a tool starts that carries on
	// the caller's conversation sends the same one.
	CacheKey string
	// Logger logs on behalf of the call. Call sets it to a logger that
	// discards when it is nil, so handlers may always use it.
	Logger *slog.Logger
}

// ready returns inv, or a copy with the blanks a handler relies on filled
// in, allocating only when something is missing.
func (inv *Invocation) ready() *Invocation {
	if inv != nil && inv.Logger != nil {
		return inv
	}
	c := new(Invocation)
	if inv != nil {
		*c = *inv
	}
	c.Logger = discardLogger
	return c
}

var discardLogger = slog.New(slog.DiscardHandler)
