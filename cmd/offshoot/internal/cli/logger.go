package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Logger returns the logger of the library's packages for a command: their
// warnings and errors, one "warning: …" or "error: …" line each on
// standard error — the message, then its attributes — and nothing below
// warnings.
func (e *Env) Logger() *slog.Logger {
	return slog.New(&lineHandler{w: e.Err()})
}

// lineHandler writes records as lines a person reads.
type lineHandler struct {
	w     io.Writer
	attrs []slog.Attr
	group string
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	kind := "warning"
	if r.Level >= slog.LevelError {
		kind = "error"
	}
	var b strings.Builder
	b.WriteString(kind + ": " + strings.TrimSpace(r.Message))
	var details []string
	for _, a := range h.attrs {
		details = append(details, a.Key+"="+a.Value.Resolve().String())
	}
	r.Attrs(func(a slog.Attr) bool {
		if !a.Equal(slog.Attr{}) {
			details = append(details, h.key(a.Key)+"="+a.Value.Resolve().String())
		}
		return true
	})
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, ", ") + ")")
	}
	_, err := fmt.Fprintln(h.w, Printable(b.String()))
	return err
}

// key qualifies an attribute's key with the handler's group.
func (h *lineHandler) key(k string) string {
	if h.group == "" {
		return k
	}
	return h.group + "." + k
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		if !a.Equal(slog.Attr{}) {
			c.attrs = append(c.attrs, slog.Attr{Key: h.key(a.Key), Value: a.Value})
		}
	}
	return &c
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}
