// Command planstep is offshoot's main demo, offline on the scripted model:
// a planner agent sets up a plan over the files in its virtual filesystem,
// dispatches one plan-step subagent per step — in parallel, each forked
// from a snapshot of the planner's session and reading through the VFS
// tools — and reports their summaries. It prints what happens as it goes,
// then the snapshot-parity and isolation checks it performed, and exits
// non-zero if any failed.
//
//	go run ./examples/planstep
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "planstep:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ctx := context.Background()
	fmt.Fprintln(w, "offshoot planstep demo — a planner dispatches plan-step subagents (scripted model, offline)")
	fmt.Fprintln(w)

	// The planner and the reviewer it dispatches, looked up by
	// (namespace, key); their sections hold no session (examples/billing).
	parent, err := session.New(session.WithIDGenerator(counter("s")))
	if err != nil {
		return err
	}
	defer parent.Close()
	chk := newChecks(parent)
	defer chk.stop()
	engine := subagent.New(subagent.Options{ChildSetup: chk.childSetup, NewID: counter("agent-")})
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
	fmt.Fprintf(w, "The planner's session %s holds %d files.\n\n", parent.ID(), vfs.Files(parent).Len())

	d := watch(w, parent.Bus(), parent.ID())
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: planner, Session: parent, Model: billing.Script(), ModelName: "scripted",
		UserMessage: "Review the billing module.",
	})
	d.stop()
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "\nSummaries:")
	plan, _ := planning.CurrentPlan(parent)
	for _, step := range plan.Steps {
		fmt.Fprintf(w, "  %s %s [%s]\n", step.StepID, step.Title, step.Status)
		for _, n := range step.Notes {
			fmt.Fprintf(w, "      %s\n", n)
		}
	}
	fmt.Fprintf(w, "  planner: %s\n", resp.Text)
	fmt.Fprintf(w, "  usage: planner %d tokens, subagents %d tokens, %d model turns\n", resp.Usage.TotalTokens, resp.ChildUsage.TotalTokens, resp.Turns)

	chk.final(artifacts(parent))
	return chk.print(w)
}

// counter returns short, readable ids: prefix1, prefix2, … (the library's
// default is random UUIDs).
func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s%d", prefix, n.Add(1)) }
}

// artifacts returns the artifacts the dispatches reported.
func artifacts(s *session.Session) []string {
	var out []string
	for ti := range session.All[runner.ToolInvoked](s) {
		if ti.Name != promptsubagent.ToolName || !ti.Success {
			continue
		}
		var res promptsubagent.DispatchSubagentResult
		if err := json.Unmarshal(ti.Value, &res); err == nil {
			out = append(out, res.Artifacts...)
		}
	}
	return out
}
