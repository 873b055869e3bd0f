// Package inspector is the session inspector: a web page over a store of
// sessions (package store) that shows them as a person reads them — the
// sessions as a table, a session's chat beside its timeline of committed
// batches, its state at any seq, the diff between two seqs, the tree of
// its subagents and forks — and a session being written as it commits.
// `offshoot ui` serves it; a program that keeps sessions in a store can
// serve it too (New is an http.Handler).
//
// It reads through store.Store only, a page at a time, and writes nothing
// unless Options.AllowActions: then it can fork a session at a seq,
// export a snapshot and preview a write-back. Every request must carry
// the server's token (the URL it prints holds it; a cookie keeps it
// after the first page) and name the server's own host, and a request
// from another site is refused: a page on the internet cannot read the
// sessions through the browser of the person who runs it. All the text of
// a session — the model's, the tools', file names, ids — is untrusted and
// shown escaped.
package inspector

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/internal/loopback"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Options configure the inspector.
type Options struct {
	// Host is the host and port the page is served at, as the browser
	// names it ("127.0.0.1:8080"): requests naming another host are
	// refused (no DNS rebinding). Loopback names — localhost,
	// 127.0.0.1, [::1] — at the same port are accepted too when Host is
	// a loopback address.
	Host string
	// Token is the secret every request must carry; a random one when
	// empty (see Server.URL).
	Token string
	// Reducers are the reducer sets the stored sessions were folded by
	// (the runner's and the tools'): the state at a seq is folded through
	// them. Without them the state and diff pages say so.
	Reducers []session.Reducers
	// AllowActions lets the page fork a session at a seq, export a
	// snapshot and preview a write-back; without it the page only reads.
	AllowActions bool
	// ProjectDir, when set, is the directory a write-back preview
	// compares a session's files with.
	ProjectDir string
}

// Server is the inspector: an http.Handler over a store.
type Server struct {
	st    store.Store
	opts  Options
	mux   *http.ServeMux
	pages *template.Template
	hosts map[string]bool
	poll  time.Duration // how often a live page checks for new batches
}

// New returns the inspector over st. It reads st for as long as it
// serves; closing st is the caller's.
func New(st store.Store, opts Options) (*Server, error) {
	if st == nil {
		return nil, errors.New("inspector: no store given; open one (store/sqlite, store/postgres) and pass it")
	}
	if opts.Host == "" {
		return nil, errors.New("inspector: Options.Host is empty; give the host and port the page is served at (the listener's address), so that requests naming another host can be refused")
	}
	if opts.Token == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("inspector: cannot make a token: %w", err)
		}
		opts.Token = hex.EncodeToString(b)
	}
	hosts, err := allowedHosts(opts.Host)
	if err != nil {
		return nil, err
	}
	pages, err := template.New("").Funcs(funcs).ParseFS(assets, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("inspector: templates: %w", err)
	}
	s := &Server{st: st, opts: opts, pages: pages, hosts: hosts, poll: 100 * time.Millisecond}
	static, _ := fs.Sub(assets, "static")
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.sessionsPage)
	mux.HandleFunc("GET /session", s.sessionPage)
	mux.HandleFunc("GET /state", s.statePage)
	mux.HandleFunc("GET /diff", s.diffPage)
	mux.HandleFunc("GET /tree", s.treePage)
	mux.HandleFunc("GET /live", s.live)
	mux.HandleFunc("POST /fork", s.actionsOnly(s.fork))
	mux.HandleFunc("GET /export", s.actionsOnly(s.export))
	mux.HandleFunc("GET /writeback", s.actionsOnly(s.writeBack))
	s.mux = mux
	return s, nil
}

// URL returns the address to open: the server's page with its token.
func (s *Server) URL() string {
	return "http://" + s.opts.Host + "/?token=" + url.QueryEscape(s.opts.Token)
}

// allowedHosts returns the Host headers a request may carry.
func allowedHosts(host string) (map[string]bool, error) {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return nil, fmt.Errorf("inspector: Options.Host %q is not a host and port (such as 127.0.0.1:8080): %v", host, err)
	}
	out := map[string]bool{strings.ToLower(host): true}
	if loopback.Is(host) {
		for _, name := range []string{"localhost", "127.0.0.1", "::1"} {
			out[strings.ToLower(net.JoinHostPort(name, port))] = true
		}
	}
	_ = h
	return out, nil
}
