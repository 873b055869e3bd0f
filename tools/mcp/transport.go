package mcp

import (
	"context"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// How long a stdio server may take to exit after its input is closed
// before it is sent SIGTERM, and then SIGKILL; and how long its output
// pipes may stay open after it exits (a child process it left behind may
// hold them).
const (
	terminateGrace = 2 * time.Second
	pipeGrace      = time.Second
)

// link is what a connection needs besides the SDK's transport: how to
// release what the transport cannot (a process group, idle HTTP
// connections), and the server's error output.
type link struct {
	transport sdk.Transport
	cmd       *exec.Cmd    // stdio servers
	stderr    *tail        // stdio servers
	http      *http.Client // HTTP servers
}

// release kills what is left of a stdio server's process group and closes
// idle HTTP connections.
func (l *link) release() error {
	if l.http != nil {
		l.http.CloseIdleConnections()
	}
	if l.cmd != nil {
		return killGroup(l.cmd)
	}
	return nil
}

// newLink builds the transport cfg describes.
func newLink(cfg ServerConfig) *link {
	switch {
	case cfg.Transport != nil:
		return &link{transport: cfg.Transport}
	case cfg.Type == "http" || cfg.Type == "sse":
		var base http.RoundTripper = http.DefaultTransport
		if t, ok := base.(*http.Transport); ok {
			base = t.Clone() // its own idle connections, closed with the server
		}
		client := &http.Client{Transport: &headerTransport{base: base, headers: cfg.Headers}}
		l := &link{http: client}
		if cfg.Type == "sse" {
			l.transport = &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}
		} else {
			l.transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
		}
		return l
	default:
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = cfg.Dir
		cmd.Env = os.Environ()
		for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
			cmd.Env = append(cmd.Env, k+"="+cfg.Env[k])
		}
		stderr := &tail{max: 500}
		cmd.Stderr = stderr
		cmd.WaitDelay = pipeGrace
		ownGroup(cmd)
		return &link{
			transport: &spawning{&sdk.CommandTransport{Command: cmd, TerminateDuration: terminateGrace}},
			cmd:       cmd, stderr: stderr,
		}
	}
}

// ended says how a connection ended on its own: a command server's exit
// status, or a lost connection.
func (l *link) ended() string {
	if e := l.exited(); e != "" {
		return "stopped: " + e
	}
	return "stopped: the connection to it was lost"
}

// exited says how a command server's process ended, once it has been
// waited for; "" otherwise.
func (l *link) exited() string {
	if l.cmd != nil && l.cmd.ProcessState != nil {
		return "its process ended (" + l.cmd.ProcessState.String() + ")"
	}
	return ""
}

// signaled reports whether a command server's process was ended by a
// signal — by offshoot stopping it — rather than exiting on its own.
func (l *link) signaled() bool {
	return l.cmd != nil && l.cmd.ProcessState != nil && !l.cmd.ProcessState.Exited()
}

// headerTransport adds the configured headers to every request, leaving
// those the SDK sets itself alone.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

// RoundTrip sends req with the configured headers.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			if req.Header.Get(k) == "" {
				req.Header.Set(k, v)
			}
		}
	}
	return t.base.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the base transport.
func (t *headerTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// tail keeps the last bytes written to it: the end of a server's error
// output, for messages.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the end of p.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if n >= t.max {
		t.buf = append(t.buf[:0], p[n-t.max:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

// String returns what was kept, on one line, trimmed.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.ToValidUTF8(string(t.buf), "")
	return strings.Join(strings.Fields(s), " ")
}

// spawning starts a command server on the spawning thread (see
// onSpawnThread), so that the kernel ends the server with offshoot.
type spawning struct{ *sdk.CommandTransport }

// Connect starts the server and connects to it.
func (t *spawning) Connect(ctx context.Context) (sdk.Connection, error) {
	var conn sdk.Connection
	var err error
	release := onSpawnThread(func() { conn, err = t.CommandTransport.Connect(ctx) })
	if err != nil {
		release()
		return nil, err
	}
	return &spawned{Connection: conn, release: release}, nil
}

// spawned is the connection to a server started on the spawning thread;
// closing it, which ends the server, releases the thread.
type spawned struct {
	sdk.Connection
	release func()
}

// Close closes the connection, which stops the server, then releases the
// spawning thread.
func (c *spawned) Close() error {
	err := c.Connection.Close()
	c.release()
	return err
}
