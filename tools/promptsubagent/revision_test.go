package promptsubagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Artifacts are the files that exist in the child at the end and were not
// in the parent, or differ from it; they reach the parent with the
// dispatch's result, atomically, and the parent does not change while the
// child runs.
func TestArtifactsReachTheParentWhenTheChildIsDone(t *testing.T) {
	var w *world
	var during sessiontest.Captured
	var duringOK bool
	w = newWorld(t, promptsubagent.Options{ChildSetup: func(c *session.Session) error {
		during = sessiontest.Capture(w.s)
		return nil
	}})
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText),
			scripted.ToolCall("write_file", `{"file_path":"notes/new.md","content":"new"}`),
			scripted.ToolCall("edit_file", `{"file_path":"src/a.go","old_string":"package a","new_string":"package alpha"}`),
			scripted.ToolCall("write_file", `{"file_path":"tmp/scratch.md","content":"scratch"}`),
			scripted.ToolCall("rm", `{"path":"tmp/scratch.md"}`),
			scripted.ToolCall("rm", `{"path":"src/b.go"}`),
			scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
				// The child is about to finish: the parent is as it was.
				duringOK = sessiontest.AssertUnchanged(t, during, w.s)
				return &model.Response{Message: model.AssistantMessage("done editing")}, nil
			}),
		),
		scripted.ToolCall("dispatch_subagent", args(t, adHoc("Edit the files."))),
		scripted.Text("ok"),
	)
	w.evaluate(t, m)
	assert.True(t, duringOK, "the parent did not change while the child ran")

	ti, _ := session.Latest[runner.ToolInvoked](w.s)
	var res promptsubagent.DispatchSubagentResult
	require.NoError(t, json.Unmarshal(ti.Value, &res))
	assert.Equal(t, []string{"notes/new.md", "src/a.go"}, res.Artifacts, "new and changed files; not one written then removed")
	files := vfs.Files(w.s)
	f, _ := files.Get("notes/new.md")
	assert.Equal(t, "new", f.Content)
	f, _ = files.Get("src/a.go")
	assert.Equal(t, "package alpha\n", f.Content)
	_, ok := files.Get("src/b.go")
	assert.True(t, ok, "a removal is not an artifact: the parent keeps its file")
	_, ok = files.Get("tmp/scratch.md")
	assert.False(t, ok)
}

func TestArtifactCopyCanBeTurnedOff(t *testing.T) {
	w := newWorld(t, promptsubagent.Options{NoArtifactCopy: true})
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText),
			scripted.ToolCall("write_file", `{"file_path":"notes/new.md","content":"new"}`), scripted.Text("wrote it")),
		scripted.ToolCall("dispatch_subagent", args(t, adHoc("Write a note."))),
		scripted.Text("ok"),
	)
	w.evaluate(t, m)
	ti, _ := session.Latest[runner.ToolInvoked](w.s)
	var res promptsubagent.DispatchSubagentResult
	require.NoError(t, json.Unmarshal(ti.Value, &res))
	assert.Equal(t, []string{"notes/new.md"}, res.Artifacts, "still named")
	_, ok := vfs.Files(w.s).Get("notes/new.md")
	assert.False(t, ok, "but not copied")
}

// A child that fails keeps its work: the parent's tool message holds the
// child's partial text after the failure line.
func TestAFailedChildsPartialTextReachesTheParent(t *testing.T) {
	w := newWorld(t, promptsubagent.Options{MaxTurns: 2})
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText),
			scripted.Reply(&model.Response{Message: model.AssistantMessage("Found the bug in a.go.", model.ToolCall{ID: "1", Name: "ls", Arguments: `{}`})}),
			scripted.Reply(&model.Response{Message: model.AssistantMessage("Still looking at b.go.", model.ToolCall{ID: "2", Name: "ls", Arguments: `{}`})})),
		scripted.ToolCall("dispatch_subagent", args(t, adHoc("Find the bug."))),
		scripted.Text("ok"),
	)
	w.evaluate(t, m)
	ti, _ := session.Latest[runner.ToolInvoked](w.s)
	assert.False(t, ti.Success)
	assert.Equal(t, "Subagent run aborted: Subagent stopped after reaching max turns (2)\n\nStill looking at b.go.", ti.Result)
}

// A thousand dispatches in one turn: every child runs, and afterwards no
// goroutine (TestMain's goleak) and no child session is left.
func TestAThousandParallelDispatchesLeaveNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand children")
	}
	const n = 1000
	w := newWorld(t, promptsubagent.Options{})
	var mu sync.Mutex
	var children []weak.Pointer[session.Session]
	engine := subagent.New(subagent.Options{MaxConcurrent: n, MaxSpawns: n})
	parent, err := prompt.New("root", "many", prompt.Markdown[prompt.NoParams]("Lead", "You fan out."),
		vfs.Section(vfs.Options{}), promptsubagent.Section(w.reg, engine, promptsubagent.Options{ChildSetup: func(c *session.Session) error {
			mu.Lock()
			children = append(children, weak.Make(c))
			mu.Unlock()
			return nil
		}}))
	require.NoError(t, err)
	calls := make([]model.ToolCall, n)
	for i := range calls {
		calls[i] = model.ToolCall{ID: fmt.Sprint(i), Name: "dispatch_subagent", Arguments: args(t, adHoc(fmt.Sprintf("part %d", i)))}
	}
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText), scripted.Repeat(scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("did " + strings.SplitN(req.Messages[0].Content, "part ", 2)[1][:3])}, nil
		}))),
		scripted.ToolCalls(calls...),
		scripted.Text("all done"),
	)
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: w.s, Model: m, UserMessage: "go"})
	require.NoError(t, err)
	assert.Equal(t, "all done", resp.Text)
	assert.Equal(t, n, resp.ToolCalls)
	assert.Empty(t, w.s.ChildIDs())
	for range 3 {
		runtime.GC()
	}
	alive := 0
	mu.Lock()
	for _, c := range children {
		if c.Value() != nil {
			alive++
		}
	}
	seen := len(children)
	mu.Unlock()
	assert.Equal(t, n, seen)
	assert.Zero(t, alive, "every child session was collected")
}
