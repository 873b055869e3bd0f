package promptsubagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

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

// The files a child writes through its own prompt's VFS tools are its
// artifacts as much as those it writes through tools it inherited. They
// are copied back only into state the parent's own tools keep: a parent
// without the VFS is told the paths, and its session gets no files.
func TestArtifactsOfTheChildPromptsOwnTools(t *testing.T) {
	const writerText = "You write reports."
	tests := []struct {
		name      string
		parentVFS bool
		wantFiles []string
	}{
		{"the parent has no VFS", false, nil},
		{"the parent has the VFS too", true, []string{"report.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prompt.NewRegistry()
			writer, err := prompt.New("agents", "writer",
				prompt.Markdown[prompt.NoParams]("Writer", writerText), vfs.Section(vfs.Options{}))
			require.NoError(t, err)
			require.NoError(t, reg.Register(writer))
			var n atomic.Int64
			engine := subagent.New(subagent.Options{NewID: func() string { return fmt.Sprintf("agent-%d", n.Add(1)) }})
			sections := []prompt.Part{prompt.Markdown[prompt.NoParams]("Lead", "You delegate.")}
			if tt.parentVFS {
				sections = append(sections, vfs.Section(vfs.Options{}))
			}
			sections = append(sections, promptsubagent.Section(reg, engine, promptsubagent.Options{}))
			parent, err := prompt.New("root", "lead", sections...)
			require.NoError(t, err)
			s, err := session.New()
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })

			call := promptsubagent.DispatchSubagent{Mode: "ad_hoc", PromptNS: "agents", PromptKey: "writer", Instructions: "Write the report."}
			m := scripted.New(
				scripted.When(scripted.SystemContains(writerText),
					scripted.ToolCall("write_file", `{"file_path":"report.md","content":"# Report\n"}`),
					scripted.Text("wrote report.md")),
				scripted.ToolCall("dispatch_subagent", args(t, call)),
				scripted.Text("done"),
			)
			before := sessiontest.Capture(s)
			_, err = runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: s, Model: m, ModelName: "scripted", UserMessage: "go"})
			require.NoError(t, err)

			ti, ok := session.Latest[runner.ToolInvoked](s)
			require.True(t, ok)
			require.True(t, ti.Success, ti.Result)
			var res promptsubagent.DispatchSubagentResult
			require.NoError(t, json.Unmarshal(ti.Value, &res))
			assert.Equal(t, []string{"report.md"}, res.Artifacts, "the file the child wrote with its own prompt's tools")

			var files []string
			for f := range vfs.Files(s).All() {
				files = append(files, f.Path)
			}
			assert.Equal(t, tt.wantFiles, files)
			if !tt.parentVFS {
				// Nothing but the parent's own records: no file events in a
				// session whose tools keep no files.
				sessiontest.AssertUnchanged(t, before, s,
					sessiontest.Ignore[runner.PromptRendered](), sessiontest.Ignore[runner.ConversationMessage](),
					sessiontest.Ignore[runner.ModelCalled](), sessiontest.Ignore[runner.ContextUsage](), sessiontest.Ignore[runner.ToolInvoked](),
					sessiontest.Ignore[runner.PromptExecuted](), sessiontest.Ignore[runner.Spent]())
			}
		})
	}
}

// With host mounts, the VFS tools are wrapped to seed new sessions; the
// wrapper must not hide what the tools are. A dispatched child still hands
// back the files it wrote (listed and copied into the parent), and its
// prompt still says what files it starts from.
func TestArtifactsWithMountedFiles(t *testing.T) {
	host := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(host, "README.md"), []byte("# Project\n"), 0o600))
	opts := vfs.Options{Mounts: []vfs.Mount{{HostPath: host}}, AllowedRoots: []string{host}}
	const workerText = "You write notes."
	reg := prompt.NewRegistry()
	worker, err := prompt.New("agents", "worker", prompt.Markdown[prompt.NoParams]("Worker", workerText))
	require.NoError(t, err)
	require.NoError(t, reg.Register(worker))
	engine := subagent.New(subagent.Options{})
	parent, err := prompt.New("root", "lead", prompt.Markdown[prompt.NoParams]("Lead", "You delegate."),
		vfs.Section(opts), promptsubagent.Section(reg, engine, promptsubagent.Options{}))
	require.NoError(t, err)
	s, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })

	var childSystem string
	call := promptsubagent.DispatchSubagent{Mode: "ad_hoc", PromptNS: "agents", PromptKey: "worker", Instructions: "Write the notes."}
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText),
			scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
				childSystem = req.Messages[0].Content
				return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "w", Name: "write_file",
					Arguments: `{"file_path":"notes.md","content":"# Notes\n"}`})}, nil
			}),
			scripted.Text("wrote notes.md")),
		scripted.ToolCall("dispatch_subagent", args(t, call)),
		scripted.Text("done"),
	)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: s, Model: m, ModelName: "scripted", UserMessage: "go"})
	require.NoError(t, err)

	ti, ok := session.Latest[runner.ToolInvoked](s)
	require.True(t, ok)
	require.True(t, ti.Success, ti.Result)
	var res promptsubagent.DispatchSubagentResult
	require.NoError(t, json.Unmarshal(ti.Value, &res))
	assert.Equal(t, []string{"notes.md"}, res.Artifacts, "listed as an artifact")
	_, copied := vfs.Files(s).Get("notes.md")
	assert.True(t, copied, "copied back into the parent")
	assert.Contains(t, childSystem, "README.md", "the child's prompt says what files it starts from")
}
