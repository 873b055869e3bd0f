// Command taskagents shows the Task tool, offline on the scripted model: a
// main agent delegates, in one turn, to two agents defined in Markdown
// files beside this program — a read-only security reviewer written for
// Claude Code (.claude/agents/security-reviewer.md: Claude Code's tool
// names, model sonnet, a key offshoot ignores) and a summarizer on the
// light model (.offshoot/agents/summarizer.md) — and answers from what
// they report, while a third agent, the built-in explore, goes on in the
// background. When it ends, its notification reaches the main agent's
// next model call, and the main agent answers again. It prints the agents
// it loaded, then what happens as it happens, the models' text as it
// streams in, and exits non-zero if the run did not go as the script
// says.
//
//	go run ./examples/taskagents
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

//go:embed workspace
var workspace embed.FS

func main() {
	if err := run(os.Stdout, projectDir()); err != nil {
		fmt.Fprintln(os.Stderr, "taskagents:", err)
		os.Exit(1)
	}
}

// projectDir is the directory holding the agent files: this program's own,
// whether it runs from there or from the repository's root.
func projectDir() string {
	for _, dir := range []string{".", filepath.Join("examples", "taskagents")} {
		if _, err := os.Stat(filepath.Join(dir, ".offshoot", "agents")); err == nil {
			return dir
		}
	}
	return "."
}

func run(w io.Writer, dir string) error {
	ctx := context.Background()
	fmt.Fprintln(w, "offshoot taskagents demo — a main agent delegates to agents defined in files (scripted model, offline)")
	fmt.Fprintln(w)

	// The agents: the project's files, then the built-ins. (A real program
	// also passes HomeDir to read ~/.offshoot/agents and ~/.claude/agents.)
	reg := agents.Load(agents.Options{ProjectDir: dir})
	if err := showAgents(w, reg, dir); err != nil {
		return err
	}

	// The models: main and light, both scripted, behind the router the
	// agents' model names resolve through (sonnet means main, haiku light).
	release := make(chan struct{})
	mainModel, lightModel := scripts(release)
	router, err := model.NewStaticRouter(map[string]model.Model{model.Main: mainModel, model.Light: lightModel}, nil)
	if err != nil {
		return err
	}

	// The main agent: its role, the virtual filesystem, and the agents
	// section with the Task tool — one call.
	engine := subagent.New(subagent.Options{NewID: counter("agent-")})
	mainPrompt, err := prompt.New("demo", "main",
		prompt.Markdown[prompt.NoParams]("Assistant", `
			You are a coding assistant. For reviews and digests, delegate to the agents below,
			in parallel when the tasks are independent, then answer the user from their reports.`),
		vfs.Section(vfs.Options{}),
		task.Section(reg, engine, router, task.Options{}),
	)
	if err != nil {
		return err
	}
	s, err := session.New(session.WithIDGenerator(counter("s")))
	if err != nil {
		return err
	}
	defer s.Close()
	if err := seed(ctx, s); err != nil {
		return err
	}
	fmt.Fprintf(w, "The main agent's session %s holds %d files.\n\n", s.ID(), vfs.Files(s).Len())

	d := watch(w, s)
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: mainPrompt, Session: s, Model: router.Main(), ModelName: model.Main,
		UserMessage: "Is the new login code safe? And what did we decide in the design notes?",
	})
	if err != nil {
		d.stop()
		return err
	}

	// The background agent outlived the evaluation that started it. Let
	// it work, wait for it, and carry on the main agent's conversation:
	// its next model call reads the task's notification.
	d.println("\nThe main agent has answered; the explore agent works on in the background.")
	close(release)
	if err := engine.Tasks().Wait(ctx); err != nil {
		d.stop()
		return err
	}
	more, err := runner.Evaluate(ctx, runner.Request{
		Prompt: mainPrompt, Session: s, Model: router.Main(), ModelName: model.Main, Continue: resp.Evaluation,
	})
	d.stop()
	if err != nil {
		return err
	}
	for _, m := range []interface{ Verify() error }{mainModel, lightModel} {
		if err := m.Verify(); err != nil {
			return err
		}
	}

	fmt.Fprintln(w, "\nThe Task calls, as recorded:")
	for call := range session.All[runner.ToolInvoked](s) {
		if call.Name != task.ToolName {
			continue
		}
		var res task.Result
		if err := json.Unmarshal(call.Value, &res); err != nil {
			return err
		}
		if res.Status == task.StatusAsyncLaunched {
			fmt.Fprintf(w, "  %s (%s on %s): ran on after the call returned\n", res.ShortResult, res.TaskID, res.Data.ModelUsed)
			continue
		}
		var used []string
		for _, tc := range res.Data.ToolSummary {
			used = append(used, fmt.Sprintf("%s ×%d", tc.Tool, tc.Count))
		}
		fmt.Fprintf(w, "  %s (%s on %s): %s, %d tokens\n", res.ShortResult, res.Data.AgentID, res.Data.ModelUsed,
			strings.Join(used, ", "), res.Stats.Usage.TotalTokens)
	}
	fmt.Fprintf(w, "\nusage: main agent %d tokens, its agents %d tokens, %d model turns\n",
		resp.Usage.TotalTokens+more.Usage.TotalTokens, resp.ChildUsage.TotalTokens+more.ChildUsage.TotalTokens, resp.Turns+more.Turns)
	return nil
}

// showAgents prints the agents the registry holds, and fails on a
// definition that did not load.
func showAgents(w io.Writer, reg *agents.Registry, dir string) error {
	fmt.Fprintln(w, "Agents:")
	var builtins []string
	for _, d := range reg.All() {
		if d.Source == agents.Builtin {
			builtins = append(builtins, d.Name)
			continue
		}
		tools := "all its caller's"
		if d.Tools != nil {
			tools = strings.Join(d.Tools, ", ")
		}
		file, err := filepath.Rel(dir, d.Path)
		if err != nil {
			file = d.Path
		}
		fmt.Fprintf(w, "  %-18s %s file %s — model %s, tools: %s\n", d.Name, d.Source, filepath.ToSlash(file), d.Model, tools)
	}
	fmt.Fprintf(w, "  and the built-ins: %s\n", strings.Join(builtins, ", "))
	for _, diag := range reg.Warnings() {
		fmt.Fprintf(w, "  warning: %v\n", diag)
	}
	var errs []error
	for _, diag := range reg.Errors() {
		errs = append(errs, diag)
	}
	fmt.Fprintln(w)
	return errors.Join(errs...)
}

// seed writes the workspace into the session's virtual filesystem.
func seed(ctx context.Context, s *session.Session) error {
	if err := s.Install(ctx, vfs.Reducers(vfs.Table{})); err != nil {
		return err
	}
	var events []any
	err := fs.WalkDir(workspace, "workspace", func(path string, e fs.DirEntry, err error) error {
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
