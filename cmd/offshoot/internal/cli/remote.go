package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
)

// RemoteFlags send a command's subagents to workers over NATS JetStream
// (--nats, --pool): run and chat.
type RemoteFlags struct {
	// NATS is the server's URL (--nats); empty to run the subagents in
	// process.
	NATS string
	// Pool is the workers' pool (--pool).
	Pool string
}

// add registers the flags on cmd.
func (f *RemoteFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.NATS, "nats", "", "run the subagents on the workers of this NATS server (start them with 'offshoot worker --project DIR'); credentials from the NATS_* variables")
	fl.StringVar(&f.Pool, "pool", remote.DefaultPool, "with --nats, the pool of workers that run the subagents")
}

// forward is the executor a client is made with when its children run on
// workers: the remote executor needs the client's setup (its fingerprint),
// which exists only once the client does, so it is set after.
type forward struct {
	mu sync.Mutex
	x  *remote.Executor
}

// Execute runs the job on the executor set, or fails saying none is.
func (f *forward) Execute(ctx context.Context, job *subagent.Job) (*runner.Response, error) {
	f.mu.Lock()
	x := f.x
	f.mu.Unlock()
	if x == nil {
		return nil, errors.New("the workers' executor is not set up yet")
	}
	return x.Execute(ctx, job)
}

// ClientSetup is what a client registers for its children, as a worker
// of the same project must: the worker prompt of dispatch_subagent, the
// agents, the main agent's tools, and the router's models by name.
func ClientSetup(c *offshoot.Client, router *model.Router) (remote.Setup, error) {
	prompts, err := workerPrompts()
	if err != nil {
		return remote.Setup{}, err
	}
	return remote.Setup{
		Prompts: prompts,
		Agents:  c.Agents(),
		Tools:   c.Tools(),
		Model:   func(name string) (model.Model, error) { return router.Resolve(name, nil) },
	}, nil
}

// connectNATS connects to the server at url ($NATS_URL, else the default
// when empty) with the credentials of the NATS_* variables. A variable
// that is wrong is a usage error; a server that cannot be reached fails.
func (e *Env) connectNATS(url, who string) (*nats.Conn, string, error) {
	if url == "" {
		url = e.Getenv("NATS_URL")
	}
	if url == "" {
		url = nats.DefaultURL
	}
	conn, err := remote.ConnectionFromEnv(e.Getenv)
	if err == nil {
		_, err = conn.Options()
	}
	if err != nil {
		return nil, url, Usagef("%v", err)
	}
	conn.URL = url
	nc, err := remote.Connect(conn, nats.Name(fmt.Sprintf("offshoot %s %d", who, os.Getpid())))
	if err != nil {
		return nil, url, Failf("cannot reach the NATS server: %v; start one with JetStream (nats-server -js) and workers with 'offshoot worker --project DIR', or leave --nats out", err)
	}
	return nc, url, nil
}

// startRemote connects the client's children to the workers of f: it
// makes the executor fwd forwards to. The connection and the executor
// are closed by CloseStore.
func (e *Env) startRemote(ctx context.Context, f RemoteFlags, c *offshoot.Client, router *model.Router, fwd *forward) error {
	setup, err := ClientSetup(c, router)
	if err != nil {
		return Failf("the subagents' setup: %v; this is a bug, please report it", err)
	}
	nc, _, err := e.connectNATS(f.NATS, "parent")
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return Failf("%v", err)
	}
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: f.Pool, Setup: setup})
	if err != nil {
		nc.Close()
		return Failf("--nats: %v", err)
	}
	fwd.mu.Lock()
	fwd.x = x
	fwd.mu.Unlock()
	e.remote = func() {
		if err := x.Close(); err != nil {
			e.Warn("closing the workers' executor: %v", err)
		}
		nc.Close()
	}
	return nil
}

// ProjectSetup returns what a worker of the project in dir registers for
// the children it runs: what run and chat there register (ClientSetup),
// from the same agent files, tools and models, so that the fingerprints
// agree. Call done when the worker is done.
func (e *Env) ProjectSetup(ctx context.Context, dir string) (setup remote.Setup, done func(), err error) {
	if err := isDir(dir); err != nil {
		return remote.Setup{}, nil, Usagef("--project %s: %v; give the directory of the project whose subagents the worker runs", dir, err)
	}
	e.ProjectDir = dir
	c, err := e.NewClient(ctx, AgentFlags{Store: StoreFlags{Off: true}}, nil)
	if err != nil {
		return remote.Setup{}, nil, err
	}
	done = func() {
		_ = c.Close()
		e.CloseStore()
	}
	router, err := e.Models(ModelFlags{})
	if err == nil {
		setup, err = ClientSetup(c, router)
	}
	if err != nil {
		done()
		return remote.Setup{}, nil, Failf("the project's setup: %v", err)
	}
	return setup, done, nil
}
