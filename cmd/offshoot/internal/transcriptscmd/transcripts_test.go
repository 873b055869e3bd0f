package transcriptscmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/runner"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// run runs the transcripts command with args on the project dir.
func run(t *testing.T, project string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }, ProjectDir: project}
	require.NoError(t, env.Resolve())
	cmd := Command(env)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// agent runs one fresh agent that answers text on an engine keeping
// transcripts under the project's transcripts folder, and returns its id.
func agent(t *testing.T, project, answer string) string {
	t.Helper()
	dir := filepath.Join(project, filepath.FromSlash(cli.TranscriptsPath))
	parent, err := session.New()
	require.NoError(t, err)
	defer parent.Close()
	p, err := prompt.New("agents", "helper", prompt.Markdown[prompt.NoParams]("Role", "You help."))
	require.NoError(t, err)
	out, err := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir)}).Run(context.Background(), subagent.Spec{Name: "helper", Parent: parent, Mode: subagent.Fresh, Request: runner.Request{Prompt: p, UserMessage: "Help.", Model: scripted.New(scripted.Text(answer))}})
	require.NoError(t, err)
	return out.AgentID
}

func TestListWarnsOfWhatItCannotRead(t *testing.T) {
	project := t.TempDir()
	id := agent(t, project, "Done.")
	bad := filepath.Join(project, filepath.FromSlash(cli.TranscriptsPath), "other", "subagents", "agent-x.meta.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	require.NoError(t, os.WriteFile(bad, []byte("{not json"), 0o644))

	stdout, stderr, err := run(t, project, "list")
	require.NoError(t, err, "what can be read is listed")
	assert.Contains(t, stdout, id+"  helper  completed")
	assert.Contains(t, stderr, "warning: ")
	assert.Contains(t, stderr, "agent-x.meta.json")
	assert.Contains(t, stderr, "prune it with 'offshoot transcripts prune'")
}

func TestShowKeepsTheTerminalSafe(t *testing.T) {
	project := t.TempDir()
	id := agent(t, project, "Done \x1b[2J\x1b]0;owned\x07 here.")
	stdout, _, err := run(t, project, "show", id[:8])
	require.NoError(t, err)
	assert.NotContains(t, stdout, "\x1b")
	assert.NotContains(t, stdout, "\x07")
	assert.Contains(t, stdout, "  assistant: Done \uFFFD[2J\uFFFD]0;owned\uFFFD here.\n")
}

func TestConversation(t *testing.T) {
	long := strings.Repeat("word ", 200)
	tests := []struct {
		name string
		msgs []model.Message
		full bool
		want string
	}{{
		name: "text on one line or below its role",
		msgs: []model.Message{model.UserMessage("Do it."), model.AssistantMessage("First.\nSecond.\n")},
		want: "  user: Do it.\n  assistant:\n      First.\n      Second.\n",
	}, {
		name: "tool calls and results, cut",
		msgs: []model.Message{
			model.AssistantMessage("", model.ToolCall{Name: "grep", Arguments: `{"pattern": "` + long + `"}`}),
			model.ToolMessage("c1", "grep", "1\n2\n3\n4\n5\n6\n7\n8"),
			model.ToolMessage("c2", "read_file", long),
		},
		want: "  assistant → grep {\"pattern\": \"" + strings.TrimSpace(strings.Repeat("word ", 37)) + " wo…\n" +
			"  tool grep:\n      1\n      2\n      3\n      4\n      5\n      6\n      … 2 more lines (--full prints them)\n" +
			"  tool read_file: " + long[:600] + "…\n",
	}, {
		name: "whole with full",
		msgs: []model.Message{model.ToolMessage("c1", "grep", "1\n2\n3\n4\n5\n6\n7\n8")},
		full: true,
		want: "  tool grep:\n      1\n      2\n      3\n      4\n      5\n      6\n      7\n      8\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			conversation(&out, tt.msgs, tt.full)
			_, body, _ := strings.Cut(out.String(), ":\n")
			assert.Equal(t, tt.want, body)
		})
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestShowTakesTheShortID: show takes the start of an id the tree
// prints (8 characters or more); a start several ids share is a usage
// error that lists them, and a shorter one says to give 8.
func TestShowTakesTheShortID(t *testing.T) {
	project := t.TempDir()
	id := agent(t, project, "Done.")
	folder := filepath.Join(project, filepath.FromSlash(cli.TranscriptsPath))
	// A second agent whose id starts as the first one's does.
	twin := id[:8] + "-twin"
	files, err := filepath.Glob(filepath.Join(folder, "*", "subagents", "agent-"+id+".*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.Replace(f, id, twin, 1)
		require.NoError(t, os.WriteFile(name, bytes.ReplaceAll(data, []byte(id), []byte(twin)), 0o644))
	}

	for _, tt := range []struct {
		given, want, err string
		code             int
	}{
		{given: id, want: "agent:       " + id},
		{given: id[:10], want: "agent:       " + id},
		{given: twin, want: "agent:       " + twin},
		{given: id[:8], code: cli.ExitUsage, err: id[:8] + " is the start of more than one agent id: "},
		{given: id[:5], code: cli.ExitFailed, err: "give 8 or more"},
	} {
		t.Run(tt.given, func(t *testing.T) {
			out, _, err := run(t, project, "show", tt.given)
			if tt.err == "" {
				require.NoError(t, err)
				assert.Contains(t, out, tt.want)
				return
			}
			require.ErrorContains(t, err, tt.err)
			assert.Equal(t, tt.code, cli.Code(err, true))
		})
	}
}
