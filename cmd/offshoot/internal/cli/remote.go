package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
// agents, the main agent's tools (bash among them when allowed), the
// tools of its MCP servers and its agents' inline ones (started now, see
// offshoot.Client.ServerTools),
// and the router's models by name. The MCP servers' tools count in the
// fingerprint as the others do: a worker without one of them, or with
// another version of it, refuses the child, naming it.
func ClientSetup(ctx context.Context, c *offshoot.Client, router *model.Router) (remote.Setup, error) {
	prompts, err := workerPrompts()
	if err != nil {
		return remote.Setup{}, err
	}
	servers, err := c.ServerTools(ctx)
	if err != nil {
		return remote.Setup{}, err
	}
	all, err := c.Tools().With(servers.Tools()...)
	if err != nil {
		return remote.Setup{}, err
	}
	return remote.Setup{
		Prompts: prompts,
		Agents:  c.Agents(),
		Tools:   all,
		Model:   func(name string) (model.Model, error) { return router.Resolve(name, nil) },
	}, nil
}

// ConnectNATS connects to the NATS server at url ($NATS_URL, else
// nats://127.0.0.1:4222, when empty) with the credentials of the NATS_*
// variables, naming the connection "offshoot WHO PID"; it tries to reach
// a server it lost for reconnect (remote.Connection.Reconnect: two
// minutes when 0, for ever when negative). A NATS_* variable that is
// wrong is a usage error; a server that cannot be reached fails, the
// error ending with todo (what to do). It returns the URL it used.
func (e *Env) ConnectNATS(url, who string, reconnect time.Duration, todo string) (*nats.Conn, string, error) {
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
	conn.URL, conn.Reconnect = url, reconnect
	nc, err := remote.Connect(conn, nats.Name(fmt.Sprintf("offshoot %s %d", who, os.Getpid())), nats.ErrorHandler(natsErrors(e.Logger(), who)))
	if err != nil {
		return nil, url, Failf("cannot reach the NATS server at %s: %v; %s", Redact(url), err, todo)
	}
	return nc, url, nil
}

// Redact returns the server URLs u lists (comma-separated) with their
// credentials hidden — a password, or a token given as the user — for
// printing.
func Redact(u string) string {
	if u == "" {
		return ""
	}
	parts := strings.Split(u, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		at := strings.LastIndex(p, "@")
		if at < 0 {
			parts[i] = p
			continue
		}
		scheme, rest := "", p[:at]
		if k := strings.Index(rest, "://"); k >= 0 {
			scheme, rest = rest[:k+3], rest[k+3:]
		}
		if user, _, ok := strings.Cut(rest, ":"); ok {
			if k := strings.Index(user, "@"); k >= 0 {
				user = user[:k]
			}
			parts[i] = scheme + user + ":xxxxx" + p[at:]
		} else {
			parts[i] = scheme + "xxxxx" + p[at:]
		}
	}
	return strings.Join(parts, ",")
}

// startRemote connects the client's children to the workers of f: it
// makes the executor fwd forwards to. The connection and the executor
// are closed by CloseStore.
func (e *Env) startRemote(ctx context.Context, f RemoteFlags, c *offshoot.Client, router *model.Router, fwd *forward) error {
	nc, _, err := e.ConnectNATS(f.NATS, "parent", 0, "start one with JetStream (nats-server -js) and workers with 'offshoot worker --project DIR', or leave --nats out")
	if err != nil {
		return err
	}
	setup, err := ClientSetup(ctx, c, router) // starts the MCP servers
	if err != nil {
		nc.Close()
		return Failf("the subagents' setup: %v", err)
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
// agree; with the tools f.Allow allows (--allow bash) and the MCP
// servers run and chat may start there (the project's only once
// approved, as f.ApproveMCP does; an unapproved project's servers are a
// usage error, never started). Call done when the worker is done: it
// stops the servers.
func (e *Env) ProjectSetup(ctx context.Context, dir string, f AgentFlags) (setup remote.Setup, done func(), err error) {
	if err := isDir(dir); err != nil {
		return remote.Setup{}, nil, Usagef("--project %s: %v; give the directory of the project whose subagents the worker runs", dir, err)
	}
	if e.ProjectDir, err = filepath.Abs(dir); err != nil { // as run's: the MCP servers' approval is recorded under it
		return remote.Setup{}, nil, Usagef("--project %s: %v", dir, err)
	}
	c, err := e.NewClient(ctx, AgentFlags{Store: StoreFlags{Off: true}, Allow: f.Allow, ApproveMCP: f.ApproveMCP}, nil)
	if err != nil {
		return remote.Setup{}, nil, err
	}
	done = func() {
		_ = c.Close()
		e.CloseStore()
	}
	router, err := e.Models(ModelFlags{})
	if err == nil {
		setup, err = ClientSetup(ctx, c, router)
	}
	if err != nil {
		done()
		return remote.Setup{}, nil, Failf("the project's setup: %v", err)
	}
	return setup, done, nil
}

// natsErrors returns the handler of the errors a NATS server sends a
// connection of who (parent, worker) while it runs: each is a warning,
// never silent. A server that refuses a subject (its permissions) leaves
// a request unanswered until its call gives up, so the warning names the
// subject's permissions and where they are listed.
func natsErrors(log *slog.Logger, who string) nats.ErrHandler {
	return func(_ *nats.Conn, sub *nats.Subscription, err error) {
		if err == nil {
			return
		}
		msg := "the NATS server reported an error to the " + who
		if errors.Is(err, nats.ErrPermissionViolation) {
			msg = "the NATS server refuses the " + who + " a subject it needs, so what uses it waits until it gives up; " +
				"give the " + who + " the permissions listed in docs/remote.md (Server configuration)"
		}
		if sub != nil {
			log.Warn(msg, "error", err.Error(), "subject", sub.Subject)
			return
		}
		log.Warn(msg, "error", err.Error())
	}
}
