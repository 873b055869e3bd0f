package promptsubagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

// Dispatcher runs dispatch_subagent calls: the Go API behind the tool, for
// programs that dispatch from their own code. Create one with NewDispatcher;
// it is safe for concurrent use and holds no session.
type Dispatcher struct {
	reg    *prompt.Registry
	engine *subagent.Engine
	opts   Options
	// children caches the prompts children run, by registry prompt: the
	// registry's prompts are few and live as long as it does.
	children sync.Map // *prompt.Prompt -> *prompt.Prompt
}

// NewDispatcher returns a dispatcher looking child prompts up in reg and
// running them on engine, configured by opts.
func NewDispatcher(reg *prompt.Registry, engine *subagent.Engine, opts Options) *Dispatcher {
	return &Dispatcher{reg: reg, engine: engine, opts: opts}
}

var delegationType = reflect.TypeFor[Delegation]()

// Dispatch runs one dispatch for the tool call inv, from the session
// inv.Session with the toolset inv.Tools. It returns the result and the
// events to dispatch to the parent — the record of what the child spent
// (runner.Spent, marked as counted), the artifacts copied back and
// the plan reconciliation; the tool returns them with its result, so the
// parent changes only when the result is recorded, never while the child
// runs — or:
//   - a *tools.ValidationError for invalid input — no child was created
//     (or, for a failed child setup, it was closed at once);
//   - a *DispatchSubagentError when the child's evaluation failed;
//   - another error, whose message the model is shown, when the child
//     prompt could not be rendered or the engine refused the run (cycle,
//     depth, budget).
//
// Events may accompany an error: the child's usage when it ran, a plan
// step marked blocked.
func (d *Dispatcher) Dispatch(ctx context.Context, inv *tools.Invocation, in DispatchSubagent) (DispatchSubagentResult, []any, error) {
	res := DispatchSubagentResult{PromptNS: in.PromptNS, PromptKey: in.PromptKey}
	if inv == nil || inv.Session == nil {
		return res, nil, errors.New("dispatch_subagent needs the session of the calling evaluation; run it through the runner")
	}
	p, deleg, plan, err := d.validate(inv.Session, &in)
	if err != nil {
		return res, nil, &tools.ValidationError{Tool: ToolName, Err: err}
	}
	snap := inv.Session.Snapshot()
	states := inv.Tools.States()
	for _, st := range states {
		if s := st.Summary(snap); s != "" {
			deleg.State = append(deleg.State, s)
		}
	}

	m, name := d.opts.Model, d.opts.ModelName
	if m == nil {
		m, name = inv.Model, inv.ModelName
	}
	if m == nil {
		return res, nil, errors.New("dispatch_subagent has no model to run the subagent on: the program that offers this tool gives it none (a setup mistake, not the call's)")
	}
	out, err := d.engine.Run(ctx, subagent.Spec{Name: in.PromptNS + "/" + in.PromptKey, Description: describe(in.Instructions), Parent: inv.Session, Caller: inv, Mode: subagent.Forked, Snapshot: &snap, TaskInPrompt: true, Withhold: []string{ToolName}, Setup: d.opts.ChildSetup, Request: runner.Request{Prompt: p, Params: []any{deleg}, UserMessage: kickoff, Model: m, ModelName: name, Tools: inv.Tools, MaxTurns: d.opts.MaxTurns}})
	var events []any
	if out != nil {
		events = append(events, out.Spent())
	}
	if err != nil {
		err = d.failure(in, out, err)
		var ve *tools.ValidationError
		if errors.As(err, &ve) {
			return res, nil, err
		}
		return res, append(events, d.reconcile(plan, in, false, err.Error())...), err
	}
	res.MessageSummary = strings.TrimSpace(out.Text)
	if res.MessageSummary == "" {
		res.MessageSummary = "(the subagent finished without a summary)"
	}
	names, copies := d.artifacts(states, out)
	res.Artifacts, events = names, append(events, copies...)
	res.ToolsUsed = []string{}
	if out.Response != nil && out.Response.ToolsUsed != nil {
		res.ToolsUsed = slices.Clone(out.Response.ToolsUsed)
	}
	return res, append(events, d.reconcile(plan, in, true, res.MessageSummary)...), nil
}

// kickoff is the child's first user message: its task is in its prompt
// (the Delegation params), so that the instructions appear once.
const kickoff = "Work on the delegated task described above, then reply with a concise summary of the result."

// failure words an engine error as the dispatch reports it.
func (d *Dispatcher) failure(in DispatchSubagent, out *subagent.Outcome, err error) error {
	var ee *runner.EvaluationError
	switch {
	case errors.Is(err, subagent.ErrSetup):
		return &tools.ValidationError{Tool: ToolName, Err: &serde.ValidationError{Reason: "the subagent's session could not be hydrated: " + err.Error()}}
	case errors.As(err, &ee) && ee.Phase == runner.PhaseRender:
		return fmt.Errorf("The subagent prompt %s/%s could not be rendered: %v", in.PromptNS, in.PromptKey, ee.Err)
	case errors.Is(err, subagent.ErrCycle), errors.Is(err, subagent.ErrDepth), errors.Is(err, subagent.ErrBudget),
		errors.Is(err, subagent.ErrParentClosed), errors.Is(err, subagent.ErrInvalidSpec):
		return err
	}
	de := &DispatchSubagentError{PromptNS: in.PromptNS, PromptKey: in.PromptKey, Err: err}
	if out != nil {
		de.Partial = strings.TrimSpace(out.Text)
	}
	return de
}

// validate checks the input against the registry and the parent session.
func (d *Dispatcher) validate(s *session.Session, in *DispatchSubagent) (*prompt.Prompt, Delegation, planning.Plan, error) {
	var deleg Delegation
	in.Instructions = strings.TrimSpace(in.Instructions)
	if err := checkText("instructions", in.Instructions, 1, maxInstructions, "after trimming"); err != nil {
		return nil, deleg, planning.Plan{}, err
	}
	for i, a := range in.ExpectedArtifacts {
		if err := checkText(fmt.Sprintf("expected_artifacts[%d]", i), a, 0, maxArtifactName, ""); err != nil {
			return nil, deleg, planning.Plan{}, err
		}
	}
	plan, hasPlan := planning.CurrentPlan(s)
	deleg = Delegation{Instructions: in.Instructions, Mode: in.Mode, ExpectedArtifacts: slices.Clone(in.ExpectedArtifacts)}
	switch in.Mode {
	case modePlanStep:
		if strings.TrimSpace(in.PlanStepID) == "" {
			return nil, deleg, plan, &serde.ValidationError{Path: "plan_step_id", Reason: "is required when mode is plan_step"}
		}
		if hasPlan && plan.Exists() {
			step, ok := plan.Step(in.PlanStepID)
			if !ok {
				return nil, deleg, plan, &serde.ValidationError{Path: "plan_step_id", Reason: fmt.Sprintf("%q names no step of the plan; steps: %s", in.PlanStepID, stepIDs(plan))}
			}
			deleg.PlanStepID, deleg.PlanStepTitle, deleg.PlanStepDetails = step.StepID, step.Title, step.Details
		} else {
			deleg.PlanStepID = in.PlanStepID
		}
	case modeAdHoc:
		if in.PlanStepID != "" {
			return nil, deleg, plan, &serde.ValidationError{Path: "plan_step_id", Reason: "must be empty when mode is ad_hoc; use mode plan_step to work on a plan step"}
		}
	default:
		return nil, deleg, plan, &serde.ValidationError{Path: "mode", Reason: "must be one of: plan_step ad_hoc"}
	}
	if in.SnapshotVersion != "" && in.SnapshotVersion != session.SchemaVersion {
		return nil, deleg, plan, &serde.ValidationError{Path: "snapshot_version", Reason: fmt.Sprintf("%q is not this session's snapshot schema version %q", in.SnapshotVersion, session.SchemaVersion)}
	}
	if d.reg == nil {
		return nil, deleg, plan, &serde.ValidationError{Path: "prompt_key", Reason: "no prompt registry is configured"}
	}
	p, err := d.reg.LookupEnabled(in.PromptNS, in.PromptKey)
	if err != nil {
		return nil, deleg, plan, &serde.ValidationError{Path: "prompt_key", Reason: err.Error()}
	}
	p, err = d.childPrompt(p)
	if err != nil {
		return nil, deleg, plan, &serde.ValidationError{Path: "prompt_key", Reason: err.Error()}
	}
	return p, deleg, plan, nil
}

// childPrompt returns the prompt a child of registry prompt p runs: p
// with the Delegated task section when none of its sections takes
// Delegation params, oriented as a subagent (subagent.Orient). It is built
// once per registry prompt.
func (d *Dispatcher) childPrompt(p *prompt.Prompt) (*prompt.Prompt, error) {
	if ext, ok := d.children.Load(p); ok {
		return ext.(*prompt.Prompt), nil
	}
	ext := p
	if !slices.Contains(p.ParamTypes(), delegationType) {
		var err error
		if ext, err = p.Extend(delegatedTask); err != nil {
			return nil, err
		}
	}
	ext, err := subagent.Orient(ext)
	if err != nil {
		return nil, err
	}
	d.children.Store(p, ext)
	return ext, nil
}

// reconcile returns the planning event marking the dispatched step.
func (d *Dispatcher) reconcile(plan planning.Plan, in DispatchSubagent, ok bool, text string) []any {
	if d.opts.NoPlanReconciliation || in.Mode != modePlanStep || !plan.Exists() {
		return nil
	}
	status, note := planning.StepBlocked, "Subagent failed: "+text
	if ok {
		status, note = planning.StepDone, "Subagent: "+firstLine(text)
	}
	ev, err := planning.MarkStepEvent(plan, in.PlanStepID, status, clip(note, 512))
	if err != nil {
		return nil
	}
	return []any{ev}
}

// artifacts returns what the child produced: the artifacts of the states
// of its whole toolset (the files it wrote, for the VFS — through the
// tools it inherited or its prompt's own), then the artifacts its
// structured output declares; names sorted and distinct. Unless copying
// is off, it also returns the events that copy them into the parent — for
// the states of the parent's own toolset only (parent): a parent whose
// tools keep no files is told the paths, and gets no files.
func (d *Dispatcher) artifacts(parent []tools.State, out *subagent.Outcome) ([]string, []any) {
	seen := map[string]bool{}
	var names []string
	var events []any
	for _, st := range out.States {
		ns, evs := st.Artifacts(out.Start, out.Final)
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		if !d.opts.NoArtifactCopy && slices.Contains(parent, st) {
			events = append(events, evs...)
		}
	}
	slices.Sort(names)
	if out.Output != nil {
		if b, err := json.Marshal(out.Output); err == nil {
			for _, a := range gjson.GetBytes(b, "artifacts").Array() {
				if s := a.String(); a.Type == gjson.String && s != "" && !seen[s] {
					seen[s] = true
					names = append(names, s)
				}
			}
		}
	}
	if names == nil {
		names = []string{}
	}
	return names, events
}

func stepIDs(p planning.Plan) string {
	ids := make([]string, 0, len(p.Steps))
	for _, s := range p.Steps {
		ids = append(ids, s.StepID)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// checkText checks that s, the input at path, is ASCII of lo to hi
// characters.
func checkText(path, s string, lo, hi int, after string) error {
	if !isASCII(s) {
		return &serde.ValidationError{Path: path, Reason: "must be ASCII"}
	}
	if n := utf8.RuneCountInString(s); n < lo || n > hi {
		size := fmt.Sprintf("at most %d", hi)
		if lo > 0 {
			size = fmt.Sprintf("%d to %d", lo, hi)
		}
		if after != "" {
			after = " " + after
		}
		return &serde.ValidationError{Path: path, Reason: fmt.Sprintf("must be %s ASCII characters%s, got %d", size, after, n)}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > 0x7f {
			return false
		}
	}
	return true
}

// maxDescription bounds the description of a dispatch in the engine's
// records (transcripts, task notifications).
const maxDescription = 100

// describe returns the short description of a task given by instructions
// (trimmed ASCII): their first line, cut at a word to at most
// maxDescription characters.
func describe(instructions string) string {
	s := firstLine(instructions)
	if len(s) <= maxDescription {
		return s
	}
	cut := s[:maxDescription-3]
	if i := strings.LastIndexByte(cut, ' '); i > maxDescription/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + "..."
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// clip shortens s to at most n bytes of ASCII text, as plan notes require.
func clip(s string, n int) string {
	b := make([]byte, 0, min(len(s), n))
	for i := 0; i < len(s) && len(b) < n; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b = append(b, c)
		} else if c == '\n' || c == '\t' {
			b = append(b, ' ')
		}
	}
	return string(b)
}
