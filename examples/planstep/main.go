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
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

//go:embed workspace
var workspace embed.FS

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

	// The subagent prompt, looked up by (namespace, key) at dispatch time.
	reg := prompt.NewRegistry()
	reviewer, err := prompt.New("agents", "reviewer", prompt.Markdown[prompt.NoParams]("Reviewer", `
		You review one module of a code base for correctness. Read the code with the
		file tools, write your findings to the notes file you are asked for, and answer
		with one or two sentences: the problem and the fix.`))
	if err != nil {
		return err
	}
	if err := reg.Register(reviewer); err != nil {
		return err
	}

	// The planner: its own instructions, the VFS, planning and
	// dispatch_subagent sections. Sections hold no session.
	parent, err := session.New(session.WithIDGenerator(counter("s")))
	if err != nil {
		return err
	}
	defer parent.Close()
	chk := newChecks(parent)
	defer chk.stop()
	engine := subagent.New(subagent.WithChildSetup(chk.childSetup), subagent.WithIDGenerator(counter("agent-")))
	planner, err := prompt.New("demo", "planner",
		prompt.Markdown[prompt.NoParams]("Planner", `
			You coordinate a code review. Make a plan with one step per module, then
			dispatch one reviewer subagent per step, in parallel, and report what they found.`),
		vfs.Section(vfs.Options{}),
		planning.Section(planning.Options{}),
		promptsubagent.Section(reg, engine),
	)
	if err != nil {
		return err
	}
	if err := seed(ctx, parent, planner); err != nil {
		return err
	}
	fmt.Fprintf(w, "The planner's session %s holds %d files.\n\n", parent.ID(), vfs.Files(parent).Len())

	d := watch(w, parent.Bus(), parent.ID())
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: planner, Session: parent, Model: script(), ModelName: "scripted",
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

// seed installs the planner's tools on the session and writes the
// workspace into its VFS, as the planner's first state.
func seed(ctx context.Context, s *session.Session, p *prompt.Prompt) error {
	r, err := p.Render()
	if err != nil {
		return err
	}
	if err := r.Tools.Install(ctx, s); err != nil {
		return err
	}
	var events []any
	err = fs.WalkDir(workspace, "workspace", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := workspace.ReadFile(path)
		if err != nil {
			return err
		}
		events = append(events, vfs.FileWritten{Path: strings.TrimPrefix(path, "workspace/"), Content: string(data), Version: 1})
		return nil
	})
	if err != nil {
		return err
	}
	return s.Dispatch(ctx, events...)
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
