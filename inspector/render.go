package inspector

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
)

// page is what every template is given: the page's own view and what the
// layout shows around it.
type page struct {
	Title   string
	Actions bool
	V       any
}

// render writes the page the template name makes of v, whole or not at
// all: a template that fails leaves no half page.
func (s *Server) render(w http.ResponseWriter, name string, v any) {
	var buf bytes.Buffer
	if err := s.pages.ExecuteTemplate(&buf, name, page{Title: name, Actions: s.opts.AllowActions, V: v}); err != nil {
		slog.Error("inspector: a page failed", "page", name, "err", err)
		http.Error(w, "the inspector failed on this page; this is a bug, please report it", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// fail answers with an error page saying msg (escaped).
func (s *Server) fail(w http.ResponseWriter, code int, msg string) {
	var buf bytes.Buffer
	if err := s.pages.ExecuteTemplate(&buf, "error.html", page{Title: "error", V: msg}); err != nil {
		http.Error(w, printable(msg), code)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// urlQuery escapes s for a query parameter.
func urlQuery(s string) string { return url.QueryEscape(s) }
