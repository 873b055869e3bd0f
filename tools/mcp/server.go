package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one configured server of a Manager: its connection, if any,
// and the tools it offered when it first started.
type server struct {
	m    *Manager
	name string
	cfg  ServerConfig

	mu       sync.Mutex
	conn     *conn         // the live connection; nil when there is none
	starting chan struct{} // closed when the start under way ends
	listed   bool          // tools holds what the first start listed
	tools    []*tool
	failed   *ServerError // why the server is unavailable for the rest of the run
	last     *ServerError // why the last connection ended
	restarts int
	relErrs  []error // failures to stop processes
}

// conn is one connection to a server.
type conn struct {
	session *sdk.ClientSession
	link    *link
	cancel  context.CancelFunc // ends the connection's context
	done    chan struct{}      // closed once the connection has ended and is cleaned up
	err     *ServerError       // why it ended on its own; set before done is closed
}

// toolList returns the server's tools, starting it if it never started;
// nil when it could not be started.
func (s *server) toolList(ctx context.Context) []*tool {
	s.mu.Lock()
	if s.listed {
		defer s.mu.Unlock()
		return s.tools
	}
	s.mu.Unlock()
	if _, err := s.get(ctx); err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// get returns a live connection, starting the server when it has none:
// the first time, or again after it stopped (at most maxRestarts times).
// It waits for a start under way while ctx allows.
func (s *server) get(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		switch {
		case s.m.ctx.Err() != nil:
			s.mu.Unlock()
			return nil, errClosed
		case s.conn != nil:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case s.failed != nil:
			err := s.failed
			s.mu.Unlock()
			return nil, err
		}
		if s.starting == nil {
			if s.listed {
				if s.restarts >= maxRestarts {
					s.failed = &ServerError{Server: s.name, Stderr: s.last.Stderr,
						Err: fmt.Errorf("stopped %d times during this run and is not started again; the last time it %w", s.restarts+1, s.last.Err)}
					err := s.failed
					s.mu.Unlock()
					return nil, err
				}
				s.restarts++
			}
			s.starting = make(chan struct{})
			s.m.wg.Add(1)
			go s.start(s.starting)
		}
		ch := s.starting
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// start connects to the server and lists its tools, then closes ch. A
// failure is final for the run and a warning.
func (s *server) start(ch chan struct{}) {
	defer s.m.wg.Done()
	defer close(ch)
	c, list, err := s.connect()
	s.mu.Lock()
	s.starting = nil
	if err != nil {
		s.failed = err
		s.mu.Unlock()
		s.m.warn(err)
		return
	}
	if s.m.ctx.Err() != nil { // closed while starting
		s.mu.Unlock()
		s.stop(c)
		return
	}
	var skipped []*ServerError
	if !s.listed {
		s.tools, skipped = newTools(s, list)
		s.listed = true
	}
	s.conn = c
	s.m.wg.Add(1)
	go s.watch(c)
	s.mu.Unlock()
	for _, w := range skipped {
		s.m.warn(w)
	}
}

// connect starts the server (or reaches it) and lists its tools, within
// the start timeout.
func (s *server) connect() (*conn, []*sdk.Tool, *ServerError) {
	l := newLink(s.cfg)
	ctx, cancel := context.WithCancel(s.m.ctx)
	timer := time.AfterFunc(s.m.opts.startTimeout, cancel)
	session, err := s.m.client.Connect(ctx, l.transport, nil)
	var list []*sdk.Tool
	if err == nil {
		for t, lerr := range session.Tools(ctx, nil) {
			if lerr != nil {
				err = fmt.Errorf("listing its tools: %w", lerr)
				break
			}
			list = append(list, t)
		}
	}
	timedOut := !timer.Stop()
	if err == nil {
		return &conn{session: session, link: l, cancel: cancel, done: make(chan struct{})}, list, nil
	}
	if session != nil {
		_ = session.Close()
	}
	cancel()
	if rerr := l.release(); rerr != nil {
		s.addReleaseErr(rerr)
	}
	switch {
	case s.m.ctx.Err() != nil:
		err = errClosed
	case timedOut:
		err = fmt.Errorf("did not start within %v; check that its command runs by hand, or allow it more time", s.m.opts.startTimeout)
	default:
		// A process that exited on its own says why by its status; one
		// that offshoot stopped after what it sent broke the protocol
		// says so by the error that made it stop.
		if ended := l.exited(); ended != "" && !l.signaled() {
			err = errors.New(ended)
		}
		err = fmt.Errorf("%w; check its configuration%s", err, where(s.cfg.Source))
	}
	return nil, nil, s.serverError(fmt.Errorf("could not be started: %w", err), l.stderr.String())
}

// serverError says that the server failed with err, after writing stderr
// to its standard error, without the values of its configuration's ${VAR}
// references.
func (s *server) serverError(err error, stderr string) *ServerError {
	return &ServerError{Server: s.name, Err: s.cfg.hideError(err), Stderr: s.cfg.hide(stderr)}
}

// watch waits until the connection ends, then cleans up after it: the
// process group, the connection's context. An end that Close did not ask
// for is recorded and becomes a warning.
func (s *server) watch(c *conn) {
	defer s.m.wg.Done()
	waitErr := c.session.Wait()
	closing := s.m.ctx.Err() != nil
	s.mu.Lock()
	if s.conn == c { // no new call gets this connection
		s.conn = nil
	}
	s.mu.Unlock()
	_ = c.session.Close()
	c.cancel()
	if err := c.link.release(); err != nil {
		s.addReleaseErr(err)
	}
	var cause *ServerError
	if !closing {
		why := errors.New(c.link.ended())
		if waitErr != nil && (c.link.cmd == nil || c.link.signaled()) {
			// The connection broke (what the server sent was no MCP, say)
			// and offshoot stopped the server: the break is the cause.
			why = fmt.Errorf("stopped: %w", waitErr)
		}
		cause = s.serverError(why, c.link.stderr.String())
	}
	s.mu.Lock()
	if cause != nil {
		s.last = cause
	}
	c.err = cause
	s.mu.Unlock()
	// Warn before releasing the calls that wait on done, so a caller told
	// the server stopped finds the warning already recorded.
	if cause != nil {
		s.m.warn(cause)
	}
	close(c.done)
}

// stop closes a connection nobody else knows of.
func (s *server) stop(c *conn) {
	_ = c.session.Close()
	c.cancel()
	if err := c.link.release(); err != nil {
		s.addReleaseErr(err)
	}
}

// detach takes the live connection away, for Close.
func (s *server) detach() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	s.conn = nil
	return c
}

func (s *server) addReleaseErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.relErrs = append(s.relErrs, fmt.Errorf("mcp: stopping the processes of server %q: %w", s.name, err))
}

func (s *server) releaseErr() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.relErrs
}
