package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offshoot-dev/offshoot/tools"
)

// Defaults of a Manager's time limits.
const (
	// defaultStartTimeout bounds starting a server and listing its tools.
	defaultStartTimeout = 30 * time.Second
	// defaultCallTimeout bounds one tool call.
	defaultCallTimeout = 5 * time.Minute
)

// maxRestarts is how many times a server that stopped during a run is
// started again, on the next call of one of its tools.
const maxRestarts = 2

// Manager runs the MCP servers of one run: it starts a server when its
// tools are first asked for, shares it between all the agents of the run,
// and stops every server when the run ends (Close). A Manager is safe for
// concurrent use.
//
// A server that cannot be started, or that stops during the run, never
// fails the run: it becomes a warning (see WithWarnings and Warnings), a
// server that could not be started offers no tools, and calls of the tools
// of a server that stopped get a failed result saying why. A server that
// stopped is started again on the next call of one of its tools, at most
// twice in a run.
type Manager struct {
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	client *sdk.Client
	opts   options
	wg     sync.WaitGroup // start and watch goroutines

	mu       sync.Mutex
	servers  map[string]*server
	prefixes map[string]string // toolName(name, "") → name
	warnings []*ServerError
	closed   bool
}

// Option configures a Manager.
type Option func(*options)

type options struct {
	startTimeout, callTimeout time.Duration
	onWarning                 func(*ServerError)
}

// WithWarnings calls f with every server problem as it happens: a server
// that could not be started, stopped during the run, or offered a tool that
// cannot be used. f runs on the Manager's goroutines and must not block.
func WithWarnings(f func(*ServerError)) Option { return func(o *options) { o.onWarning = f } }

// NewManager returns a Manager for servers, keyed by name (as LoadProject
// returns them). Nothing starts until Tools asks for a server's tools. A
// configuration that is not valid, or two server names that would give
// their tools the same names ("my.server" and "my_server"), is an error.
func NewManager(servers map[string]ServerConfig, opts ...Option) (*Manager, error) {
	o := options{startTimeout: defaultStartTimeout, callTimeout: defaultCallTimeout}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.startTimeout <= 0 {
		o.startTimeout = defaultStartTimeout
	}
	if o.callTimeout <= 0 {
		o.callTimeout = defaultCallTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		ctx: ctx, cancel: cancel, opts: o,
		client: sdk.NewClient(&sdk.Implementation{Name: "offshoot"}, &sdk.ClientOptions{
			Capabilities: &sdk.ClientCapabilities{},
			Logger:       slog.New(slog.DiscardHandler),
		}),
		servers: map[string]*server{}, prefixes: map[string]string{},
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if err := m.add(name, servers[name]); err != nil {
			cancel()
			return nil, err
		}
	}
	return m, nil
}

// Add adds a server to the Manager, such as one an agent definition gives
// inline. Adding a server again with the same configuration does nothing;
// another configuration under a name the Manager knows is an error, and so
// is adding after Close.
func (m *Manager) Add(name string, cfg ServerConfig) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed
	}
	return m.add(name, cfg)
}

func (m *Manager) add(name string, cfg ServerConfig) error {
	if strings.TrimSpace(name) == "" {
		return &configError{File: cfg.Source, Err: errors.New("a server needs a name")}
	}
	cfg, err := cfg.check()
	if err != nil {
		return &configError{File: cfg.Source, Server: name, Err: err}
	}
	if prev, ok := m.servers[name]; ok {
		if sameConfig(prev.cfg, cfg) {
			return nil
		}
		return &configError{File: cfg.Source, Server: name, Err: fmt.Errorf("another server of this name is already configured%s; rename one of them", where(prev.cfg.Source))}
	}
	prefix := toolName(name, "")
	if other, ok := m.prefixes[prefix]; ok {
		return &configError{File: cfg.Source, Server: name, Err: fmt.Errorf("its tools would be named like those of server %q (%s__…); rename one of them", other, prefix)}
	}
	m.prefixes[prefix] = name
	m.servers[name] = &server{m: m, name: name, cfg: cfg}
	return nil
}

// where words a source file for a message.
func where(source string) string {
	if source == "" {
		return ""
	}
	return " in " + source
}

// sameConfig reports whether a and b describe the same server.
func sameConfig(a, b ServerConfig) bool {
	return a.Type == b.Type && a.Command == b.Command && slices.Equal(a.Args, b.Args) &&
		maps.Equal(a.Env, b.Env) && a.Dir == b.Dir && a.URL == b.URL &&
		maps.Equal(a.Headers, b.Headers) && sameTransport(a.Transport, b.Transport)
}

// sameTransport reports whether a and b are the same transport value,
// without the panic == gives on values that cannot be compared.
func sameTransport(a, b sdk.Transport) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Comparable() && vb.Comparable() && a == b
}

// Names returns the names of the servers the Manager knows, sorted.
func (m *Manager) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.servers))
}

// Tools returns the tools of the named servers, server by server in the
// order given, each server's tools in the order it lists them. Servers not
// started yet are started, at the same time; one that cannot be started
// offers no tools and becomes a warning. Each tool is named as ToolName
// says and is the same value in every toolset the Manager returns, so the
// toolsets of a parent and of its subagents agree.
//
// Pass the result as runner.Request.Tools (or to a subagent's
// Spec.Request.Tools); tools.Filter entries "mcp__SERVER" and "mcp__*" select among
// them. An unknown name is an error that lists the known ones; so is a
// Manager that is closed, and ctx ending before the servers are ready.
func (m *Manager) Tools(ctx context.Context, names ...string) (tools.Toolset, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return tools.Toolset{}, errClosed
	}
	var list []*server
	for _, name := range names {
		s, ok := m.servers[name]
		if !ok {
			known := slices.Sorted(maps.Keys(m.servers))
			m.mu.Unlock()
			if len(known) == 0 {
				return tools.Toolset{}, fmt.Errorf("mcp: no MCP server is named %q: none is configured; add it to %s or %s", name, projectFile, configFile)
			}
			return tools.Toolset{}, fmt.Errorf("mcp: no MCP server is named %q; the configured servers are %s", name, strings.Join(known, ", "))
		}
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	m.mu.Unlock()

	found := make([][]*tool, len(list))
	var wg sync.WaitGroup
	for i, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i] = s.toolList(ctx)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return tools.Toolset{}, fmt.Errorf("mcp: waiting for MCP servers to start: %w", err)
	}
	if m.ctx.Err() != nil {
		return tools.Toolset{}, errClosed
	}
	var set tools.Toolset
	for _, ts := range found {
		for _, t := range ts {
			var err error
			if set, err = set.With(t); err != nil {
				return tools.Toolset{}, fmt.Errorf("mcp: %w", err)
			}
		}
	}
	return set, nil
}

// Warnings returns the server problems of the run so far, oldest first.
func (m *Manager) Warnings() []*ServerError {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.warnings)
}

// warn records a server problem, unless the Manager is closing.
func (m *Manager) warn(err *ServerError) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.warnings = append(m.warnings, err)
	f := m.opts.onWarning
	m.mu.Unlock()
	if f != nil {
		f(err)
	}
}

// Close stops every server the Manager started — a command server's whole
// process group, so no process it started is left behind — and waits until
// they are gone. Calls still running fail, saying the run ended. Close is
// idempotent; the Manager cannot be used afterwards.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	m.cancel()

	var wg sync.WaitGroup
	for _, s := range servers {
		if c := s.detach(); c != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = c.session.Close()
			}()
		}
	}
	wg.Wait()
	m.wg.Wait()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.releaseErr()...)
	}
	return errors.Join(errs...)
}
