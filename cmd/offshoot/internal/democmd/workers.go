package democmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/workercmd"
	"github.com/offshoot-dev/offshoot/remote"
)

// cluster is where the demo's children run: a JetStream server (embedded,
// or one the user named), the worker processes the demo started (this
// program, run as offshoot worker), and an executor that hands them the
// children.
type cluster struct {
	srv     *server.Server // nil on the user's server
	url     string
	pool    string
	dir     string
	nc      *nats.Conn
	js      jetstream.JetStream
	exec    *remote.Executor
	workers []*exec.Cmd
}

// startCluster connects to the JetStream server at url — or, when url is
// empty, starts an embedded one on a free loopback port with its store
// in a temporary directory — starts n worker processes serving pool on
// it, and waits until at least max(n, 1) workers wait for jobs, for up to
// wait (30s when 0).
func startCluster(ctx context.Context, url, pool string, n int, worker func(url, pool string) (*exec.Cmd, error), wait time.Duration) (c *cluster, err error) {
	c = &cluster{url: url, pool: pool}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
	if url == "" {
		if c.dir, err = os.MkdirTemp("", "offshoot-demo-nats-"); err != nil {
			return c, err
		}
		c.srv, err = server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: c.dir, NoLog: true, NoSigs: true})
		if err != nil {
			return c, fmt.Errorf("starting the embedded NATS server: %w", err)
		}
		go c.srv.Start()
		if !c.srv.ReadyForConnections(30 * time.Second) {
			return c, errors.New("the embedded NATS server did not start within 30s")
		}
		c.url = c.srv.ClientURL()
	}
	conn := remote.Connection{URL: c.url, Timeout: 10 * time.Second}
	if c.srv == nil { // the user's server: the nats command line's credentials
		if conn, err = remote.ConnectionFromEnv(os.Getenv); err != nil {
			return c, err
		}
		conn.URL = c.url
	}
	if c.nc, err = remote.Connect(conn); err != nil {
		return c, fmt.Errorf("cannot reach the NATS server at %s: %w; start one with JetStream (nats-server -js), or leave --nats out to use an embedded one", cli.Redact(c.url), err)
	}
	if c.js, err = jetstream.New(c.nc); err != nil {
		return c, err
	}
	setup, err := workercmd.Setup()
	if err != nil {
		return c, err
	}
	if c.exec, err = remote.NewExecutor(ctx, c.js, remote.Options{Pool: pool, Setup: setup}); err != nil {
		return c, fmt.Errorf("using JetStream at %s: %w", cli.Redact(c.url), err)
	}
	if worker == nil {
		worker = selfWorker
	}
	for range n {
		cmd, err := worker(c.url, pool)
		if err != nil {
			return c, err
		}
		if c.srv != nil && cmd.Env != nil {
			cmd.Env = append(cmd.Env, embeddedEnv...)
		}
		if err := cmd.Start(); err != nil {
			return c, fmt.Errorf("starting a worker: %w", err)
		}
		c.workers = append(c.workers, cmd)
	}
	if wait <= 0 {
		wait = 30 * time.Second
	}
	return c, c.ready(ctx, max(n, 1), wait)
}

// embeddedEnv clears, for a worker of the embedded server (which has no
// users and no TLS), the credentials the environment may hold for
// another server.
var embeddedEnv = []string{"NATS_CREDS=", "NATS_NKEY=", "NATS_USER=", "NATS_PASSWORD=", "NATS_CA=", "NATS_CERT=", "NATS_KEY="}

// selfWorker is this program run as offshoot worker. The URL goes in its
// environment (NATS_URL), not on its command line, where anyone on the
// machine could read the credentials it may carry.
func selfWorker(url, pool string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start its workers: %w", err)
	}
	cmd := exec.Command(self, "worker", "--pool", pool)
	cmd.Env = append(os.Environ(), "NATS_URL="+url)
	if err := dieWithDemo(cmd); err != nil {
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	return cmd, nil
}

// ready waits until n workers wait for jobs, so that the demo's children
// go to several of them, for up to wait.
func (c *cluster) ready(ctx context.Context, n int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		cons, err := c.js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-"+c.pool)
		if err == nil {
			if info, err := cons.Info(ctx); err == nil && info.NumWaiting >= n {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if len(c.workers) == 0 {
				return fmt.Errorf("no worker served pool %q at %s within %s: start some with offshoot worker --nats %s --pool %s, or give --workers N", c.pool, cli.Redact(c.url), wait, cli.Redact(c.url), c.pool)
			}
			return fmt.Errorf("the %d workers did not all start within %s", n, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pids lists the workers' process ids.
func (c *cluster) pids() string {
	out := ""
	for i, w := range c.workers {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprint(w.Process.Pid)
	}
	return out
}

// stop interrupts the workers and waits for them, then stops the server
// and removes its store.
func (c *cluster) stop() {
	if c.exec != nil {
		_ = c.exec.Close()
	}
	for _, w := range c.workers {
		_ = w.Process.Signal(os.Interrupt)
	}
	for _, w := range c.workers {
		done := make(chan struct{})
		go func() {
			_ = w.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = w.Process.Kill()
			<-done
		}
	}
	// Closing the connection ends the JetStream publisher's goroutines
	// (js.CleanupPublisher before it may leave one blocked for ever, if
	// the goroutine an asynchronous publish started has not run yet).
	if c.nc != nil {
		c.nc.Close()
	}
	if c.srv != nil {
		c.srv.Shutdown()
		c.srv.WaitForShutdown()
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}
