// Package democmd is offshoot's demo command: the plan-step story end to
// end on the scripted model, offline — a planner renders its prompt from
// the registry, builds a plan, dispatches plan-step subagents in parallel,
// each forked from its session, and reports their summaries — printed as
// a tree while it happens, then checked for snapshot parity and parent
// isolation.
package democmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/progress"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/workercmd"
	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// terminalDelay is the pause between streamed pieces when standard output
// is a terminal, so that streaming can be seen.
const terminalDelay = 15 * time.Millisecond

// Command returns the demo command.
func Command(env *cli.Env) *cobra.Command {
	var (
		asJSON, noColor bool
		delay           time.Duration
		workers         int
		natsURL, pool   string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a planner dispatch plan-step subagents, offline, then check parity and isolation",
		Long: `demo runs offshoot's plan-step story end to end on the scripted model, offline
and without a key: a planner agent renders its prompt from the registry, sets
up a plan over the files of its virtual filesystem, dispatches one reviewer
subagent per step — in parallel, each forked from a snapshot of the planner's
session, reading the files through the file tools and writing its notes — and
reports their summaries.

It prints what happens as it happens: the prompts rendered, each model turn
with the text it streams, the tool calls, the subagents started and finished
with their time and usage, and the files they wrote arriving in the planner's
session. Then it checks and prints snapshot parity (each subagent started with
exactly the planner's state) and isolation (the planner's state did not change
while they ran, and gained only the files they wrote).

Exit codes: 0 when the checks hold, 1 when one fails (with what differed).`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := demo{env: env, out: env.Stdout, json: asJSON, color: !asJSON && env.UseColor(noColor), width: env.TerminalWidth(), delay: delay, workers: workers, nats: natsURL, pool: pool}
			if workers < 0 || workers > 64 {
				return cli.Usagef("--workers %d is out of range; give 1 to 64 worker processes, or 0 to run the subagents in this process", workers)
			}
			if err := workercmd.CheckPool(pool); err != nil {
				return err
			}
			if !cmd.Flags().Changed("delay") && env.StdoutIsTerminal() {
				d.delay = terminalDelay
			}
			if d.delay < 0 {
				return cli.Usagef("--delay %s is negative; give a pause such as 20ms, or 0 for none", delay)
			}
			return d.run(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every event as a JSON line, then the checks, instead of the tree")
	cmd.Flags().BoolVar(&noColor, "no-color", false, "print without colours (they are used on a terminal only, and never with NO_COLOR set)")
	cmd.Flags().IntVar(&workers, "workers", 0, "run the subagents on this many worker processes, over an embedded NATS JetStream server or the one --nats names (default: in this process)")
	cmd.Flags().StringVar(&natsURL, "nats", "", "run the subagents on the workers of a NATS JetStream server (offshoot worker --nats URL), and start --workers more there; credentials from the NATS_* variables (NATS_CREDS, NATS_NKEY, NATS_USER, NATS_PASSWORD, NATS_CA, NATS_CERT, NATS_KEY)")
	cmd.Flags().StringVar(&pool, "pool", workercmd.DefaultPool, "with --nats or --workers, the pool of workers that runs the subagents")
	cmd.Flags().DurationVar(&delay, "delay", 0, "pause between the pieces the scripted model streams (default: 15ms on a terminal, none otherwise)")
	return cmd
}

// demo is one run of the story.
type demo struct {
	env   *cli.Env // for the OTEL_* variables; nil in tests that need none
	out   io.Writer
	json  bool
	color bool
	width int // the terminal's, or 0
	delay time.Duration
	// workers, when above 0, is how many worker processes run the
	// subagents; worker makes the command of one (this program, as
	// offshoot worker, when nil).
	workers int
	worker  func(url, pool string) (*exec.Cmd, error)
	// nats, when set, is the URL of a JetStream server whose workers of
	// pool run the subagents (with the workers the demo starts there).
	nats, pool string
	wait       time.Duration // for the workers to be ready; 30s when 0

	// tamper, when set, runs on each child before the checks see it, and
	// tamperParent once before the run: tests use them to break the
	// guarantees the checks verify.
	tamper       func(child *session.Session) error
	tamperParent func(parent *session.Session)
}

func (d demo) run(ctx context.Context) error {
	parent, err := session.New(session.WithIDGenerator(counter("s")))
	if err != nil {
		return err
	}
	defer parent.Close()
	if d.env != nil {
		stopTelemetry, err := d.env.Telemetry(ctx, parent.Bus(), "scripted")
		if err != nil {
			return err
		}
		defer stopTelemetry()
	}
	chk, err := newChecks(parent)
	if err != nil {
		return err
	}
	defer chk.close()
	var executor subagent.Executor
	if d.workers > 0 || d.nats != "" {
		pool := d.pool
		if pool == "" {
			pool = workercmd.DefaultPool
		}
		c, err := startCluster(ctx, d.nats, pool, d.workers, d.worker, d.wait)
		if err != nil {
			return err
		}
		defer c.stop()
		executor = c.exec
		if !d.json {
			switch {
			case d.nats == "":
				d.say("%d worker processes (pids %s) run the subagents, over an embedded NATS JetStream server at %s", d.workers, c.pids(), c.url)
			case d.workers > 0:
				d.say("the workers of pool %q at %s run the subagents, with %d started here (pids %s)", pool, cli.Redact(c.url), d.workers, c.pids())
			default:
				d.say("the workers of pool %q at %s run the subagents", pool, cli.Redact(c.url))
			}
		}
	}
	engine := subagent.New(subagent.Options{NewID: counter("agent-"), Executor: executor, ChildSetup: func(child *session.Session) error {
		if d.tamper != nil {
			if err := d.tamper(child); err != nil {
				return err
			}
		}
		return chk.childSetup(child)
	}})
	reg, err := billing.Prompts(engine, promptsubagent.Options{})
	if err != nil {
		return err
	}
	planner, err := reg.Lookup(billing.PlannerNS, billing.PlannerKey)
	if err != nil {
		return err
	}
	if err := billing.Seed(ctx, parent, planner); err != nil {
		return err
	}
	if !d.json {
		d.say("offshoot demo: a planner dispatches plan-step subagents, each forked from its session (scripted model, offline)")
		d.say("\nThe planner's session %s holds %d files: %s\n", parent.ID(), vfs.Files(parent).Len(), fileList(parent))
	}
	if d.tamperParent != nil {
		d.tamperParent(parent)
	}

	m := billing.Script()
	m.SetChunking(scripted.Chunking{Delay: d.delay})
	reviewers, unsubscribe, err := takeTurns(m, parent.Bus(), "step S001 of the plan", "step S002 of the plan")
	if err != nil {
		return err
	}
	defer unsubscribe()
	var stop func()
	if d.json {
		stop = progress.JSON(parent.Bus(), d.out)
	} else {
		stop = progress.Tree(parent.Bus(), d.out, progress.Options{Color: d.color, Width: d.width})
	}
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: planner, Session: parent, Model: reviewers, ModelName: "scripted",
		UserMessage: "Review the billing module.",
	})
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return cli.Failf("the demo was interrupted: %v", err)
		}
		return cli.Failf("the demo's run failed: %v; this is a bug, please report it with the output above", err)
	}
	if !d.json {
		d.summaries(parent, resp)
	}
	return d.report(chk.results())
}

// summaries prints the plan's steps with what the subagents reported, and
// the planner's answer.
func (d demo) summaries(parent *session.Session, resp *runner.Response) {
	d.say("\nSummaries:")
	plan, _ := planning.CurrentPlan(parent)
	for _, step := range plan.Steps {
		d.say("  %s %s [%s]", step.StepID, cli.Printable(step.Title), step.Status)
		for _, n := range step.Notes {
			d.say("      %s", cli.Printable(n))
		}
	}
	d.say("  planner: %s", cli.Printable(resp.Text))
	d.say("  usage: planner %d tokens in %d model turns, subagents %d tokens; %s in all",
		resp.Usage.TotalTokens, resp.Turns, resp.ChildUsage.TotalTokens, resp.Duration.Round(100*time.Microsecond))
}

// report prints the checks' results and fails when one does not hold.
func (d demo) report(results []result) error {
	failed := 0
	if !d.json {
		d.say("\nChecks:")
	}
	enc := json.NewEncoder(d.out)
	for _, r := range results {
		if !r.OK {
			failed++
		}
		if d.json {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		verdict := "ok"
		if !r.OK {
			verdict = "FAILED"
		}
		d.say("%s: %s — %s", r.Check, verdict, r.Detail)
		if r.Diff != "" {
			fmt.Fprintln(d.out, indentLines(cli.Printable(r.Diff), "    "))
		}
	}
	if failed > 0 {
		return cli.Failf("%s of %d failed (what differed is above); the guarantees of forked subagents do not hold here: please report it",
			plural(failed, "check"), len(results))
	}
	return nil
}

// say prints a line, wrapped to the terminal.
func (d demo) say(format string, args ...any) {
	fmt.Fprintln(d.out, columns.Fill(fmt.Sprintf(format, args...), d.width))
}

// counter returns short, readable ids: prefix1, prefix2, … (the library's
// default is random UUIDs).
func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s%d", prefix, n.Add(1)) }
}

func fileList(s *session.Session) string {
	var paths []string
	for f := range vfs.Files(s).All() {
		paths = append(paths, f.Path)
	}
	return strings.Join(paths, ", ")
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
