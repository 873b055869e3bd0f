// Command openai runs the plan-step agent of examples/planstep against a
// real model: any OpenAI-compatible server (OpenAI, vLLM, llama.cpp,
// Ollama). A planner sets up a plan over the files of its virtual
// filesystem, dispatches one reviewer subagent per step — in parallel,
// each forked from its session — and reports what they found, its text
// printed as the model streams it.
//
//	LLM_API_KEY=sk-… LLM_MODEL_ID=gpt-4.1-mini go run ./examples/openai
//	LLM_BASE_URL=http://localhost:8000/v1 LLM_MODEL_ID=qwen3 go run ./examples/openai
//
// The model comes from the LLM_* variables, or from "models" in
// .offshoot/config.json of the working directory, read as the offshoot
// command reads them (a program outside this module builds its
// model.Config itself). With none configured it says what to set and
// exits with 0.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Bounds on what one run may spend: a real model is paid for.
const (
	budget      = 200_000 // tokens, the subagents' included
	maxTurns    = 20      // the planner's model calls
	childTurns  = 12      // each reviewer's
	runDeadline = 10 * time.Minute
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "openai:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, getenv func(string) string) error {
	// The model: LLM_* variables over .offshoot/config.json.
	cfg, err := modelconfig.LoadProject(".", getenv)
	if err != nil {
		return err
	}
	models, err := model.NewRouter(cfg, openai.Factory(openai.DefaultConfig()))
	if errors.Is(err, model.ErrNotConfigured) {
		fmt.Fprintln(w, "skipping: no model is configured. To run this example against an OpenAI-compatible endpoint, set")
		fmt.Fprintln(w, "  LLM_MODEL_ID (such as gpt-4.1-mini), LLM_API_KEY, and LLM_BASE_URL for a server other than OpenAI's,")
		fmt.Fprintln(w, `or "models": {"main": {...}} in .offshoot/config.json; then go run ./examples/openai again.`)
		return nil
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, runDeadline)
	defer cancel()

	// The planner and the reviewer it dispatches (examples/billing); each
	// reviewer may make childTurns model calls.
	engine := subagent.New(subagent.Options{})
	reg, err := billing.Prompts(engine, promptsubagent.Options{MaxTurns: childTurns})
	if err != nil {
		return err
	}
	planner, err := reg.Lookup(billing.PlannerNS, billing.PlannerKey)
	if err != nil {
		return err
	}

	s, err := session.New()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := billing.Seed(ctx, s, planner); err != nil {
		return err
	}
	stop := show(w, s)
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: planner, Session: s, Model: models.Main(), ModelName: model.Main,
		UserMessage: "Review the billing module.", MaxTurns: maxTurns, Budget: budget,
	})
	stop()
	if err != nil {
		return fmt.Errorf("the planner's run failed: %w", err)
	}

	report(w, s)
	fmt.Fprintf(w, "Usage: planner %d tokens in %d turns, reviewers %d tokens; %s\n",
		resp.Usage.TotalTokens, resp.Turns, resp.ChildUsage.TotalTokens, resp.Duration.Round(time.Millisecond))
	return nil
}

// report prints the plan the planner made and the notes its reviewers
// wrote; a model that does not follow the story (it answers without
// planning, or its reviewers write nothing) is said to, not shown as
// empty headings.
func report(w io.Writer, s *session.Session) {
	plan, ok := planning.CurrentPlan(s)
	if !ok || len(plan.Steps) == 0 {
		fmt.Fprintln(w, "\nNo plan was made: the model answered without setting up a plan (planning_setup_plan), so no reviewer was dispatched. "+
			"A model that calls tools reliably follows the story; try another with LLM_MODEL_ID.")
		return
	}
	fmt.Fprintln(w, "\nPlan:")
	for _, step := range plan.Steps {
		fmt.Fprintf(w, "  %s %s [%s]\n", step.StepID, step.Title, step.Status)
	}
	var notes []string
	for f := range vfs.Files(s).All() {
		if strings.HasPrefix(f.Path, "notes/") {
			notes = append(notes, fmt.Sprintf("  %s (%d bytes)", f.Path, len(f.Content)))
		}
	}
	if len(notes) == 0 {
		fmt.Fprintln(w, "The reviewers wrote no notes (notes/…): the model did not carry the steps out.")
		return
	}
	fmt.Fprintln(w, "Notes the reviewers wrote:")
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}
