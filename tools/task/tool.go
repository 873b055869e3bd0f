package task

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
)

// ToolName is the name the model calls the tool by.
const ToolName = "Task"

// defaultMaxDepth is how deep Task delegation nests by default: 1, so an
// agent started by Task has no Task tool of its own.
//
// Task's depth limit is, first of these: Options.MaxDepth, the engine's when
// the program set one (subagent.Options.MaxDepth; see
// subagent.Engine.MaxDepthConfigured), defaultMaxDepth.
const defaultMaxDepth = 1

// The names of the tools that read a background task's output and stop
// it.
const (
	OutputToolName = "TaskOutput"
	StopToolName   = "TaskStop"
)

// delegationTools are withheld from a child at the depth limit.
var delegationTools = []string{ToolName, OutputToolName, StopToolName}

// records names the records the Task tool adds to its caller's session,
// so that a stored session reads them back in another process.
var records = session.Reducers{
	Key:   "offshoot.task",
	Names: map[reflect.Type]string{reflect.TypeFor[subagent.TaskStarted](): "offshoot.subagent.TaskStarted"},
}

// Tool returns the Task tool: a concurrent-safe tool that runs the agent
// of reg a call names on engine, choosing its model through router (nil
// when every agent runs on its caller's model), and answers with a Result.
// Several Task calls in one turn run at the same time, as the engine's
// limits allow.
//
// The tool reads reg once: its description lists reg's agents, and calls
// find agents in reg. reg is an immutable value, so a program that loads
// agents again (agents.Load) builds the tool, or the Section, again with
// the new registry; an evaluation keeps the agents it started with, and
// what the tool describes is always what it runs.
func Tool(reg *agents.Registry, engine *subagent.Engine, router *model.Router, opts Options) (tools.Tool, error) {
	if engine == nil {
		return nil, errors.New("task: Tool needs a subagent engine; create one with subagent.New")
	}
	d := &delegator{reg: reg, engine: engine, router: router, opts: opts}
	if d.opts.WorkingDir == "" {
		d.opts.WorkingDir = "."
	}
	if d.opts.MaxDepth < 1 {
		d.opts.MaxDepth = defaultMaxDepth
		if engine.MaxDepthConfigured() {
			d.opts.MaxDepth = engine.MaxDepth()
		}
	}
	if _, err := childPrompt(); err != nil {
		return nil, fmt.Errorf("task: the agents' prompt does not build: %w", err)
	}
	return tools.New(ToolName, describe(reg), d.handle, tools.ConcurrentSafe(), tools.ExcludeValue(), tools.WithReducers(records))
}

// Tools returns the three delegation tools, in this order: Task (see
// Tool), and TaskOutput and TaskStop (see outputTool and stopTool) over
// the engine's background tasks — what Section offers, for a program that
// builds its own section or toolset.
func Tools(reg *agents.Registry, engine *subagent.Engine, router *model.Router, opts Options) (tools.Toolset, error) {
	taskTool, err := Tool(reg, engine, router, opts)
	if err != nil {
		return tools.Toolset{}, err
	}
	output, err := outputTool(engine)
	if err != nil {
		return tools.Toolset{}, err
	}
	stop, err := stopTool(engine)
	if err != nil {
		return tools.Toolset{}, err
	}
	return tools.NewToolset(taskTool, output, stop)
}

// Section returns the main agent's prompt section for delegating with
// Task: the agents of reg and when to use them (agents.Section), carrying
// the Task, TaskOutput and TaskStop tools (see Tools). It is the one call
// a program needs:
//
//	main, err := prompt.New("app", "main",
//		prompt.Markdown[prompt.NoParams]("Role", "You are a coding assistant."),
//		vfs.Section(vfs.Options{}),
//		task.Section(reg, subagent.New(subagent.Options{}), router, task.Options{}),
//	)
//
// The section is shown only when reg holds agents. A problem building the
// tools is the section's construction error, which prompt.New returns.
func Section(reg *agents.Registry, engine *subagent.Engine, router *model.Router, opts Options) *prompt.Section {
	set, err := Tools(reg, engine, router, opts)
	if err != nil {
		return agents.Section(reg, prompt.WithTool(nil, err))
	}
	return agents.Section(reg, prompt.WithTools(set.Tools()...))
}

// delegator runs Task calls.
type delegator struct {
	reg    *agents.Registry
	engine *subagent.Engine
	router *model.Router
	opts   Options
}

// failure is why a call failed: the text the model reads first, and the
// agent's partial text, if it wrote some.
type failure struct{ msg, partial string }

func (f *failure) Error() string { return f.msg }

func fail(format string, args ...any) *failure { return &failure{msg: fmt.Sprintf(format, args...)} }

func (d *delegator) handle(ctx context.Context, inv *tools.Invocation, in input) (tools.Result[Result], error) {
	if inv.Session == nil {
		return tools.Result[Result]{}, errors.New("the Task tool needs the session of the calling evaluation; call it through the runner")
	}
	clock := inv.Session.Bus()
	started := clock.Now()
	res := Result{
		Data:    data{SubagentType: in.SubagentType, Name: in.Name, ToolSummary: []ToolCount{}},
		Context: callContext{Cwd: d.opts.WorkingDir, ParamsInput: in},
	}
	events, err := d.delegate(ctx, inv, in, &res)
	res.Stats.TimeMS = clock.Now().Sub(started).Milliseconds()
	var ve *tools.ValidationError
	var f *failure
	switch {
	case errors.As(err, &ve):
		return tools.Result[Result]{}, err
	case errors.As(err, &f):
		res.failed(f.msg, f.partial)
		return tools.Result[Result]{Message: res.Text, Value: res}.WithEvents(events...), nil
	case err != nil:
		res.failed(err.Error(), "")
		return tools.Result[Result]{Message: res.Text, Value: res}, nil
	}
	return tools.OK(res.Text, res).WithEvents(events...), nil
}

// delegate runs one call: it finds the agent, prepares its run, runs it
// and fills res. It returns the events for the caller's session (the
// agent's usage record, the artifacts copied back), and a *failure, or a
// *tools.ValidationError for an argument only the handler can check.
func (d *delegator) delegate(ctx context.Context, inv *tools.Invocation, in input, res *Result) ([]any, error) {
	if d.reg == nil {
		return nil, fail("%v", agents.ErrNoAgents)
	}
	var def agents.Definition
	var resumed *transcript.Meta
	var err error
	if in.Resume != "" {
		resumed, def, err = d.resumed(ctx, inv, in)
	} else {
		def, err = d.reg.Find(in.SubagentType)
	}
	if err != nil {
		var diag *agents.Diagnostic
		if errors.As(err, &diag) {
			return nil, fail("Failed to initialize subagent: %v", err)
		}
		var f *failure
		var ve *tools.ValidationError
		if errors.As(err, &f) || errors.As(err, &ve) {
			return nil, err
		}
		return nil, fail("%v", err)
	}
	res.Data.SubagentType = def.Name
	run, err := d.prepare(ctx, inv, in, def, resumed)
	if err != nil {
		return nil, err
	}
	res.Data.ModelUsed, res.Stats.Model = run.modelShown(), run.spec.Request.ModelName
	if in.RunInBackground || def.Background {
		return d.background(ctx, run, res)
	}
	return d.foreground(ctx, run, res)
}

// foreground runs the agent and waits for its answer. The events it
// returns, also with a *failure, start with the record of what the agent
// spent.
func (d *delegator) foreground(ctx context.Context, run *childRun, res *Result) ([]any, error) {
	out, err := d.engine.Run(ctx, run.spec)
	res.account(out)
	var events []any
	if out != nil {
		events = append(events, out.Spent())
	}
	if err != nil {
		f := &failure{msg: d.failureText(run, err)}
		if out != nil {
			f.partial = out.Text
		}
		return events, f
	}
	res.completed(run.def.Name, run.modelShown(), out, out.Transcript != "" && !run.def.ForkContext)
	if d.opts.NoArtifactCopy {
		return events, nil
	}
	for _, st := range run.spec.Request.Tools.States() {
		names, evs := st.Artifacts(out.Start, out.Final)
		res.Data.Artifacts = append(res.Data.Artifacts, names...)
		events = append(events, evs...)
	}
	return events, nil
}

// failureText words an engine error as the model reads it: the engine's
// own texts for its limits (timeout, cycle, depth, budget, max turns), and
// otherwise the cause, without the runner's bookkeeping.
func (d *delegator) failureText(run *childRun, err error) string {
	var ee *runner.EvaluationError
	switch {
	case errors.Is(err, subagent.ErrSetup), errors.Is(err, subagent.ErrParentClosed):
		return err.Error() // "Failed to initialize subagent: …"
	case errors.Is(err, subagent.ErrInvalidSpec):
		return "Failed to initialize subagent: " + err.Error()
	case errors.As(err, &ee) && ee.Phase == runner.PhaseRender:
		return "Failed to initialize subagent: " + ee.Err.Error()
	case errors.Is(err, subagent.ErrRun):
		cause := errors.Unwrap(err)
		if ee != nil {
			cause = ee.Err
		}
		if cause == nil {
			cause = err
		}
		return fmt.Sprintf("Subagent (%s, %s) failed: %v", run.def.Name, run.modelShown(), cause)
	}
	return err.Error()
}

// invalid is a validation error of the call's field, as the model reads
// it: "Tool validation failed: Task: FIELD: REASON".
func invalid(field, reason string) error {
	return &tools.ValidationError{Tool: ToolName, Err: &serde.ValidationError{Path: field, Reason: reason}}
}
