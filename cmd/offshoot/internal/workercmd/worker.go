// Package workercmd is offshoot's worker command: a process that runs
// subagents for others over NATS JetStream (package remote), with the
// command line's own registrations — the demo's story (its prompts, the
// planner's tools, the scripted model) — so that offshoot demo --workers N
// can hand its children to worker processes.
package workercmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
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
// dispatches to.
const DefaultPool = "offshoot"

// Command returns the worker command.
func Command(env *cli.Env) *cobra.Command {
	var url, pool string
	var concurrency int
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run subagents for other offshoot processes over NATS JetStream",
		Long: `worker connects to a NATS server with JetStream (--nats, or $NATS_URL, or
nats://127.0.0.1:4222) and runs the subagents other offshoot processes send to
its pool (--pool), until it is interrupted. It registers what the command line
registers — the demo's prompts, tools and scripted model — so that it runs the
children of 'offshoot demo --workers N'. A job from a program built from other
code is refused with a failed result that names both versions.

Exit codes: 0 when interrupted, 1 when the server cannot be reached.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				url = env.Getenv("NATS_URL")
			}
			if url == "" {
				url = nats.DefaultURL
			}
			nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.Name(fmt.Sprintf("offshoot worker %d", os.Getpid())))
			if err != nil {
				return cli.Failf("cannot reach the NATS server at %s: %v; start one with JetStream (nats-server -js) or give its address with --nats", url, err)
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				return cli.Failf("%v", err)
			}
			defer js.CleanupPublisher()
			setup, err := Setup()
			if err != nil {
				return err
			}
			setup.Concurrency = concurrency
			fmt.Fprintf(env.Stderr, "offshoot worker %d: serving pool %q on %s\n", os.Getpid(), pool, url)
			if err := remote.Serve(cmd.Context(), js, pool, setup); err != nil {
				return cli.Failf("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "nats", "", "the NATS server's URL (default: $NATS_URL, else nats://127.0.0.1:4222)")
	cmd.Flags().StringVar(&pool, "pool", DefaultPool, "the pool of workers to serve")
	cmd.Flags().IntVar(&concurrency, "concurrency", 4, "how many subagents to run at once")
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
