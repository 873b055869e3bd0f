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

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/workercmd"
	"github.com/offshoot-dev/offshoot/remote"
)

// cluster is the demo's embedded JetStream server and its worker
// processes (this program, run as offshoot worker).
type cluster struct {
	srv     *server.Server
	dir     string
	nc      *nats.Conn
	js      jetstream.JetStream
	exec    *remote.Executor
	workers []*exec.Cmd
}

// startCluster starts an embedded JetStream server on a free loopback port
// with its store in a temporary directory, n worker processes serving
// it, and an executor that hands them the demo's children.
func startCluster(ctx context.Context, n int, worker func(url, pool string) (*exec.Cmd, error)) (c *cluster, err error) {
	c = &cluster{}
	defer func() {
		if err != nil {
			c.stop()
		}
	}()
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
	if c.nc, err = nats.Connect(c.srv.ClientURL()); err != nil {
		return c, err
	}
	if c.js, err = jetstream.New(c.nc); err != nil {
		return c, err
	}
	setup, err := workercmd.Setup()
	if err != nil {
		return c, err
	}
	if c.exec, err = remote.NewExecutor(ctx, c.js, remote.Options{Pool: workercmd.DefaultPool, Setup: setup}); err != nil {
		return c, err
	}
	if worker == nil {
		worker = selfWorker
	}
	for range n {
		cmd, err := worker(c.srv.ClientURL(), workercmd.DefaultPool)
		if err != nil {
			return c, err
		}
		if err := cmd.Start(); err != nil {
			return c, fmt.Errorf("starting a worker: %w", err)
		}
		c.workers = append(c.workers, cmd)
	}
	return c, c.ready(ctx, n)
}

// selfWorker is this program run as offshoot worker.
func selfWorker(url, pool string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start its workers: %w", err)
	}
	return exec.Command(self, "worker", "--nats", url, "--pool", pool), nil
}

// ready waits until n workers wait for jobs, so that the demo's children
// go to several of them.
func (c *cluster) ready(ctx context.Context, n int) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		cons, err := c.js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-"+workercmd.DefaultPool)
		if err == nil {
			if info, err := cons.Info(ctx); err == nil && info.NumWaiting >= n {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the %d workers did not all start within 30s", n)
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
	if c.js != nil {
		c.js.CleanupPublisher()
	}
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
