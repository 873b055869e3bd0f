package inspector

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
)

// ServeHTTP serves the inspector's pages to the requests that carry the
// token and come from its own page: the Host must be the server's, an
// Origin (when the browser sends one) too, and the browser must not say
// the request comes from another site.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			slog.Error("inspector: a page failed", "path", r.URL.Path, "panic", fmt.Sprint(v))
			http.Error(w, "the inspector failed on this page; this is a bug, please report it", http.StatusInternalServerError)
		}
	}()
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !s.hosts[strings.ToLower(r.Host)] {
		http.Error(w, "this inspector answers only at its own address, "+s.opts.Host+"; open the URL it printed", http.StatusMisdirectedRequest)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !s.sameOrigin(o) {
		http.Error(w, "a request from another site is refused; open the inspector's own page", http.StatusForbidden)
		return
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		http.Error(w, "a request from another site is refused; open the inspector's own page", http.StatusForbidden)
		return
	}
	if tok := r.URL.Query().Get("token"); tok != "" {
		if !s.tokenIs(tok) {
			http.Error(w, "wrong token: open the URL the inspector printed when it started", http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		if r.Method == http.MethodGet {
			// The token leaves the address bar (and the history).
			q := r.URL.Query()
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
	} else if c, err := r.Cookie(s.cookieName()); err != nil || !s.tokenIs(c.Value) {
		http.Error(w, "no token: open the URL the inspector printed when it started (it holds the token)", http.StatusUnauthorized)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// tokenIs reports whether tok is the server's token, in constant time.
func (s *Server) tokenIs(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

// cookieName is the token's cookie: one per port, as two inspectors on
// one machine share the cookies of its host.
func (s *Server) cookieName() string {
	_, port, _ := net.SplitHostPort(s.opts.Host)
	return "offshoot_ui_" + port
}

// sameOrigin reports whether origin is the server's own.
func (s *Server) sameOrigin(origin string) bool {
	rest, ok := strings.CutPrefix(strings.ToLower(origin), "http://")
	return ok && s.hosts[rest]
}

// actionsOnly serves h only when actions are allowed.
func (s *Server) actionsOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.opts.AllowActions {
			http.Error(w, "this inspector only reads; start it with --allow-actions to fork, export or preview a write-back", http.StatusForbidden)
			return
		}
		h(w, r)
	}
}
