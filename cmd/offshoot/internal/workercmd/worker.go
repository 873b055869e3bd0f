// Package workercmd is offshoot's worker command: a process that runs
// subagents for others over NATS JetStream (package remote), with the
// command line's own registrations — the demo's story (its prompts, the
// planner's tools, the scripted model) — so that offshoot demo --workers N
// can hand its children to worker processes.
package workercmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// DefaultPool is the pool the command line's workers serve and its demo
// dispatches to: the library's, so that a program that names no pool
// reaches offshoot worker.
const DefaultPool = remote.DefaultPool

// Command returns the worker command.
func Command(env *cli.Env) *cobra.Command {
	var url, pool, project string
	var allow []string
	var approveMCP bool
	var concurrency int
	var reconnect time.Duration
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run subagents for other offshoot processes over NATS JetStream",
		Long: `worker connects to a NATS server with JetStream (--nats, or $NATS_URL, or
nats://127.0.0.1:4222) and runs the subagents other offshoot processes send to
its pool (--pool), until it is interrupted. It registers what the command line
registers — the demo's prompts, tools and scripted model — so that it runs the
children of 'offshoot demo --workers N'; with --project DIR it registers what
'offshoot run' and 'offshoot chat' register in that project — its agent files,
the tools, the configured models — so that it runs the children they send with
--nats. Start it from the same project (and offshoot version) as they run
in, with the same --allow (bash) as they have, and --approve-mcp to approve
the project's MCP servers as run does: a worker never starts servers you
have not approved. A job from a program built from other code, or with
other tools, is refused with a failed result that names what differs.

It authenticates with the nats command line's variables: NATS_CREDS (a
credentials file), NATS_NKEY (an nkey seed file), NATS_USER and NATS_PASSWORD
(a user alone is a token), NATS_CA (a CA file for the server's TLS
certificate), NATS_CERT and NATS_KEY (a client certificate), NATS_TIMEOUT.
They are never printed. docs/remote.md gives a server configuration with a
user for the parents and one for the workers.

When it loses its server, the worker tries to reconnect for --reconnect (two
minutes by default; 0 for ever), then stops its children, gives their jobs
back and exits 1, saying how long the server was unreachable.

Exit codes: 0 when interrupted, 1 when the server cannot be reached or the
worker loses it, 2 when a flag or a NATS_* variable is wrong (a pool's name
holds letters, digits, '-' and '_' only).`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := CheckPool(pool); err != nil {
				return err
			}
			if concurrency < 1 {
				return cli.Usagef("--concurrency %d is below one; give how many subagents the worker runs at once, such as 4", concurrency)
			}
			if reconnect < 0 {
				return cli.Usagef("--reconnect %s is negative; give how long the worker tries to reach a server it lost, such as 2m, or 0 for ever", reconnect)
			}
			if project == "" && (len(allow) > 0 || approveMCP) {
				return cli.Usagef("--allow and --approve-mcp are for the workers of a project: give its directory with --project DIR")
			}
			if reconnect == 0 {
				reconnect = -1 // for ever
			}
			nc, url, err := env.ConnectNATS(url, "worker", reconnect, "start one with JetStream (nats-server -js) or give its address with --nats")
			if err != nil {
				return err
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				return cli.Failf("%v", err)
			}
			setup, err := Setup()
			if project != "" {
				var done func()
				setup, done, err = env.ProjectSetup(cmd.Context(), project, cli.AgentFlags{Allow: allow, ApproveMCP: approveMCP})
				if err == nil {
					defer done()
				}
			}
			if err != nil {
				return err
			}
			setup.Concurrency = concurrency
			fmt.Fprintf(env.Stderr, "offshoot worker %d: serving pool %q on %s\n", os.Getpid(), pool, cli.Redact(url))
			ctx := cmd.Context()
			if env.Getenv(ExitOnEOF) != "" && env.Stdin != nil {
				var stop context.CancelFunc
				ctx, stop = untilEOF(ctx, env.Stdin)
				defer stop()
			}
			if err := remote.Serve(ctx, js, pool, setup); err != nil {
				return cli.Failf("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "nats", "", "the NATS server's URL (default: $NATS_URL, else nats://127.0.0.1:4222)")
	cmd.Flags().StringVar(&pool, "pool", DefaultPool, "the pool of workers to serve")
	cmd.Flags().StringVar(&project, "project", "", "run the subagents of 'offshoot run --nats' and 'offshoot chat --nats' in this project: its agents, tools and models (default: the demo's)")
	cmd.Flags().StringSliceVar(&allow, "allow", nil, "with --project, give the subagents a tool they do not get otherwise, as 'offshoot run --allow' does: bash, or bash=unconfined where bubblewrap is not installed")
	cmd.Flags().BoolVar(&approveMCP, "approve-mcp", false, "with --project, start the MCP servers the project configures (.mcp.json), and remember that you approved them, as 'offshoot run --approve-mcp' does")
	cmd.Flags().IntVar(&concurrency, "concurrency", 4, "how many subagents to run at once")
	cmd.Flags().DurationVar(&reconnect, "reconnect", remote.DefaultReconnect, "how long to try to reach a server the worker lost before it exits (0: for ever)")
	return cmd
}

// Setup is what the command line registers for its children: the same in
// its workers as where it dispatches (the demo), so that their
// fingerprints agree. The models are the scripted model of the demo's
// story, by any name.
func Setup() (remote.Setup, error) {
	reg, err := billing.Prompts(subagent.New(subagent.Options{}), promptsubagent.Options{})
	if err != nil {
		return remote.Setup{}, err
	}
	planner, err := reg.Lookup(billing.PlannerNS, billing.PlannerKey)
	if err != nil {
		return remote.Setup{}, err
	}
	r, err := planner.Render()
	if err != nil {
		return remote.Setup{}, err
	}
	if r.Tools.Len() == 0 {
		return remote.Setup{}, errors.New("the planner has no tools")
	}
	return remote.Setup{Prompts: reg, Tools: r.Tools, Model: func(string) (model.Model, error) { return billing.Script(), nil }}, nil
}

// CheckPool refuses a pool name that cannot be one token of a NATS
// subject (offshoot.jobs.<pool>): empty, longer than 64 characters, or
// holding anything but letters, digits, '-' and '_' — a dot would split
// it, '*' and '>' are wildcards — with a usage error saying so.
func CheckPool(pool string) error {
	switch {
	case pool == "":
		return cli.Usagef("--pool is empty; give the name of the workers' pool, such as %s", DefaultPool)
	case len(pool) > 64:
		return cli.Usagef("--pool is %d characters long; a pool's name is at most 64 characters", len(pool))
	case strings.ContainsFunc(pool, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}):
		return cli.Usagef("--pool %q is not a pool's name: use letters, digits, '-' and '_' only (it becomes part of a NATS subject, where '.' separates, '*' and '>' are wildcards)", pool)
	}
	return nil
}
