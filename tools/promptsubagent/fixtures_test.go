package promptsubagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

var ctx = context.Background()

const workerText = "You investigate one thing and report."

// world is a parent prompt with the VFS, planning and dispatch sections, a
// registry holding the worker prompt, and a parent session with two files
// and a two-step plan.
type world struct {
	reg    *prompt.Registry
	engine *subagent.Engine
	parent *prompt.Prompt
	s      *session.Session
	opts   promptsubagent.Options
}

func newWorld(t testing.TB, opts promptsubagent.Options) *world {
	t.Helper()
	reg := prompt.NewRegistry()
	worker, err := prompt.New("agents", "worker", prompt.Markdown[prompt.NoParams]("Worker", workerText))
	require.NoError(t, err)
	require.NoError(t, reg.Register(worker))
	var n atomic.Int64
	engine := subagent.New(subagent.Options{NewID: func() string { return fmt.Sprintf("agent-%d", n.Add(1)) }})
	parent, err := prompt.New("root", "planner",
		prompt.Markdown[prompt.NoParams]("Planner", "You coordinate the work."),
		vfs.Section(vfs.Options{}),
		planning.Section(planning.Options{}),
		promptsubagent.Section(reg, engine, opts),
	)
	require.NoError(t, err)

	s := sessiontest.New(t)
	r, err := parent.Render()
	require.NoError(t, err)
	require.NoError(t, r.Tools.Install(context.Background(), s))
	require.NoError(t, s.Dispatch(ctx,
		vfs.FileWritten{Path: "src/a.go", Content: "package a\n", Version: 1},
		vfs.FileWritten{Path: "src/b.go", Content: "package b\n", Version: 1},
		planning.PlanSetUp{Objective: "Review the code", Steps: []planning.StepDraft{{Title: "Review a.go"}, {Title: "Review b.go"}}},
	))
	return &world{reg: reg, engine: engine, parent: parent, s: s, opts: opts}
}

func (w *world) evaluate(t testing.TB, m model.Model) *runner.Response {
	t.Helper()
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: m, ModelName: "scripted", UserMessage: "review the code"})
	require.NoError(t, err)
	return resp
}

func args(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
