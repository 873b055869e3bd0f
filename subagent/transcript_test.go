package subagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// ids returns an id generator giving prefix-1, prefix-2, …
func ids(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s-%d", prefix, n.Add(1)) }
}

// lines returns the non-empty lines of the file at path.
func lines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })
}

func TestTranscriptIsWrittenAsTheChildGoes(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	clock := t0
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("a"), Clock: func() time.Time { clock = clock.Add(time.Second); return clock }})
	path := filepath.Join(dir, parent.ID(), "subagents", "agent-a-1.jsonl")
	var midway []string
	m := scripted.New(
		scripted.ToolCall("write", `{"text":"first finding"}`),
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			// Before the child's last turn, its transcript holds the
			// prompt, its tool call and the call's result.
			require.Eventually(t, func() bool { return len(lines(t, path)) == 3 }, 30*time.Second, time.Millisecond)
			midway = lines(t, path)
			return &model.Response{Message: model.AssistantMessage("one finding"), Usage: model.Usage{InputTokens: 5, OutputTokens: 2, TotalTokens: 7}}, nil
		}),
	)
	sp := spec(t, parent, m, writeTool(t))
	sp.Description = "Collect findings"
	sp.Mode = subagent.Fresh
	out, err := e.Run(ctx, sp)
	require.NoError(t, err)
	assert.Equal(t, path, out.Transcript)
	require.Len(t, midway, 3)
	assert.JSONEq(t, `{"role":"user","content":"do the work"}`, midway[0], "the task prompt comes first; the system message is not written")

	tr, err := transcript.Dir(dir).Read("a-1")
	require.NoError(t, err)
	assert.Equal(t, path, tr.Path)
	require.Len(t, tr.Messages, 4)
	assert.Equal(t, model.UserMessage("do the work"), tr.Messages[0])
	assert.Equal(t, "write", tr.Messages[1].ToolCalls[0].Name)
	assert.Equal(t, model.RoleTool, tr.Messages[2].Role)
	assert.Equal(t, model.AssistantMessage("one finding"), tr.Messages[3])

	meta := tr.Meta
	assert.Equal(t, "a-1", meta.AgentID)
	assert.Equal(t, "child/worker", meta.Type)
	assert.Equal(t, "Collect findings", meta.Description)
	assert.Equal(t, "scripted", meta.Model)
	assert.Equal(t, "fresh", meta.Mode)
	assert.Equal(t, 1, meta.Depth)
	assert.Equal(t, parent.ID(), meta.ParentSessionID)
	assert.Equal(t, parent.ID(), meta.RootSessionID)
	assert.Equal(t, string(subagent.TaskStatusCompleted), meta.Status)
	assert.Empty(t, meta.Error)
	assert.Equal(t, 1, meta.Runs)
	assert.True(t, meta.FinishedAt.After(meta.StartedAt))
	assert.Equal(t, out.Usage.Total, meta.Usage.Total)
	assert.Equal(t, map[string]int{"write": 1}, meta.Usage.ToolCalls)

	list, err := transcript.Dir(dir).List()
	require.NoError(t, err)
	assert.Equal(t, []transcript.Meta{meta}, list)
}

func TestAFailedRunIsRecordedAsFailed(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("f")})
	_, err := e.Run(ctx, spec(t, parent, scripted.New(scripted.Fail(model.ErrAuth))))
	require.Error(t, err)
	tr, err := transcript.Dir(dir).Read("f-1")
	require.NoError(t, err)
	assert.Equal(t, string(subagent.TaskStatusFailed), tr.Meta.Status)
	assert.Contains(t, tr.Meta.Error, "auth")
	assert.Equal(t, []model.Message{model.UserMessage("do the work")}, tr.Messages)
}

// A grandchild's transcript goes in the folder of the tree's root
// session, with its own depth and parent.
func TestNestedTranscriptsShareTheRootsFolder(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	m := scripted.New(
		scripted.When(scripted.SystemContains("You are worker."),
			scripted.ToolCall("delegate", `{"name":"helper","task":"help"}`), scripted.Text("worker done")),
		scripted.When(scripted.SystemContains("You are helper."), scripted.Text("helper done")),
	)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("n")})
	_, err := e.Run(ctx, spec(t, parent, m, delegateTool(t, e, m)))
	require.NoError(t, err)
	list, err := transcript.Dir(dir).List()
	require.NoError(t, err)
	require.Len(t, list, 2)
	byType := map[string]transcript.Meta{}
	for _, meta := range list {
		byType[meta.Type] = meta
		assert.Equal(t, parent.ID(), meta.RootSessionID)
	}
	assert.Equal(t, 1, byType["child/worker"].Depth)
	assert.Equal(t, 2, byType["helper"].Depth)
	assert.Equal(t, parent.ID(), byType["child/worker"].ParentSessionID)
	assert.NotEqual(t, parent.ID(), byType["helper"].ParentSessionID, "the helper's parent is the worker's session")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "one folder for the tree")
}

// Whatever an id holds, its files stay inside the folder, and are found
// again by the same id.
func TestFileNamesAreSafeWhateverAnIDHolds(t *testing.T) {
	odd := []string{"../../escape", "a/b", `a\b`, "..", ".", "", "CON", "Upper", "upper", "*?[", "ü ñ", strings.Repeat("x/", 600)}
	dir := t.TempDir()
	parent := newParent(t)
	for _, id := range odd {
		e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: func() string { return id }})
		_, err := e.Run(ctx, spec(t, parent, scripted.New(scripted.Text("answer for "+id))))
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, err := filepath.Rel(dir, p)
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(rel, ".."), p)
		if !d.IsDir() {
			assert.LessOrEqual(t, len(d.Name()), 140, "names stay short")
			seen[d.Name()] = true
		}
		return nil
	}))
	assert.Len(t, seen, 2*len(odd), "a transcript and a record per id, none shared")
	for _, id := range odd {
		tr, err := transcript.Dir(dir).Read(id)
		require.NoError(t, err, "%q", id)
		assert.Equal(t, id, tr.Meta.AgentID)
		assert.Equal(t, "answer for "+id, tr.Messages[len(tr.Messages)-1].Content)
	}
}

// A transcript that cannot be written costs a warning, never the run.
func TestAFailedWriteNeverFailsTheRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-folder")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	var logged bytes.Buffer
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(file), Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	out, err := e.Run(ctx, spec(t, newParent(t), scripted.New(scripted.ToolCall("write", `{"text":"x"}`), scripted.Text("done")), writeTool(t)))
	require.NoError(t, err)
	assert.Equal(t, "done", out.Text)
	assert.Contains(t, logged.String(), "could not")
	assert.Contains(t, logged.String(), "the run goes on")
}

// The transcript holds the messages the runner records, as JSON a reader
// of another language can take.
func TestTranscriptLinesAreMessages(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("j")})
	out, err := e.Run(ctx, spec(t, parent, scripted.New(scripted.ToolCall("write", `{"text":"x"}`), scripted.Text("done")), writeTool(t)))
	require.NoError(t, err)
	var got []model.Message
	for _, l := range lines(t, out.Transcript) {
		var m model.Message
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		got = append(got, m)
	}
	want := runner.Conversation(out.Final, out.Response.Evaluation)[1:] // all but the system message
	assert.Equal(t, want, got)
}

// A child whose task is in its prompt (Spec.TaskInPrompt, as
// dispatch_subagent's) has its system message, which holds the task, as
// the transcript's first line; resuming it renders the prompt again
// instead of sending the old one as well.
func TestATaskInThePromptIsTheTranscriptsFirstLine(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("p")})
	sp := spec(t, parent, scripted.New(scripted.Text("done")))
	sp.TaskInPrompt, sp.Request.UserMessage = true, "Start."
	out, err := e.Run(ctx, sp)
	require.NoError(t, err)

	tr, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)
	require.Len(t, tr.Messages, 3)
	assert.Equal(t, model.RoleSystem, tr.Messages[0].Role)
	assert.Contains(t, tr.Messages[0].Content, "You are worker.", "the prompt that holds the task")
	assert.Equal(t, []model.Message{model.UserMessage("Start."), model.AssistantMessage("done")}, tr.Messages[1:])

	m := scripted.New(scripted.Text("more done"))
	again := spec(t, parent, m)
	again.TaskInPrompt, again.Resume, again.Request.UserMessage = true, out.AgentID, "Go on."
	_, err = e.Run(ctx, again)
	require.NoError(t, err)
	req := m.Calls()[0].Request
	assert.Equal(t, tr.Messages[0], req.Messages[0], "the prompt rendered again, once")
	assert.Equal(t, []model.Message{model.UserMessage("Start."), model.AssistantMessage("done"), model.UserMessage("Go on.")}, req.Messages[1:])

	after, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)
	assert.Equal(t, append(tr.Messages, model.UserMessage("Go on."), model.AssistantMessage("more done")), after.Messages,
		"the transcript grows on, its first line kept")
}
