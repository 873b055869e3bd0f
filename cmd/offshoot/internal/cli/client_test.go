package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// project returns an environment on a new project directory with a
// scripted model answering text, and the project's path.
func project(t *testing.T, files map[string]string) (*Env, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	for path, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(path))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	script := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(script, []byte(`{"turns": [{"text": "Hello.", "repeat": true}]}`), 0o644))
	var stderr bytes.Buffer
	vars := map[string]string{ScriptEnv: script}
	e := &Env{ProjectDir: dir, Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(k string) string { return vars[k] }}
	return e, &stderr
}

func TestNewClient(t *testing.T) {
	e, stderr := project(t, map[string]string{
		"main.go":                       "package main\n",
		".offshoot/agents/broken.md":    "---\nname: broken\n---\nNo description.\n",
		".offshoot/agents/reviewer.md":  "---\nname: reviewer\ndescription: Reviews code.\ntools: read_file\n---\nYou review code.\n",
		".offshoot/transcripts/r/a.txt": "an old transcript",
	})
	c, err := e.NewClient(t.Context(), AgentFlags{}, nil)
	require.NoError(t, err)
	defer c.Close()
	var paths []string
	for f := range vfs.Files(c.Session()).All() {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"main.go"}, paths, "the project, without its .offshoot folder")
	assert.Equal(t, "warning: 1 agent definition has an error and is left out; see it with 'offshoot agents validate'\n", stderr.String())
	_, err = c.Agents().Find("reviewer")
	assert.NoError(t, err)

	var res error
	for msg := range c.Query(context.Background(), "Hi.") {
		if r, ok := msg.(interface{ IsError() bool }); ok && r.IsError() {
			res = errors.New("the query failed")
		}
	}
	require.NoError(t, res)
	rendered, ok := session.Latest[runner.PromptRendered](c.Session())
	require.True(t, ok)
	assert.Contains(t, rendered.Text, `- prompt_ns "offshoot", prompt_key "worker"`, "dispatch_subagent runs the worker")
	assert.Contains(t, rendered.Tools, "Task")
	assert.Contains(t, rendered.Tools, "dispatch_subagent")
}

// The directory copied in leaves out what holds secrets: offshoot's own
// folder, whose config.json may hold a key, and .env files, at any depth.
func TestNewClientLeavesOutSecrets(t *testing.T) {
	e, _ := project(t, map[string]string{
		"main.go":                      "package main\n",
		".offshoot/config.json":        `{"models": {"main": {"model": "m", "api_key": "sk-secret"}}}`,
		".offshoot/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review code.\n",
		".env":                         "LLM_API_KEY=sk-secret\n",
		".env.local":                   "LLM_API_KEY=sk-secret\n",
		"svc/.env":                     "TOKEN=secret\n",
		"svc/.env.production":          "TOKEN=secret\n",
		"svc/.offshoot/config.json":    `{"api_key": "sk-secret"}`,
		"svc/main.go":                  "package svc\n",
		"docs/env.md":                  "Set .env first.\n",
		".environment/notes.md":        "not a .env file\n",
		"svc/.envoy.yaml":              "admin: {}\n",
		".github/workflows/test.yaml":  "on: push\n",
	})
	c, err := e.NewClient(t.Context(), AgentFlags{}, nil)
	require.NoError(t, err)
	defer c.Close()
	var paths []string
	for f := range vfs.Files(c.Session()).All() {
		paths = append(paths, f.Path)
		assert.NotContains(t, f.Content, "secret", f.Path)
	}
	assert.Equal(t, []string{".environment/notes.md", ".github/workflows/test.yaml", "docs/env.md", "main.go", "svc/.envoy.yaml", "svc/main.go"}, paths)
}

func TestNewClientErrors(t *testing.T) {
	e, _ := project(t, map[string]string{
		".offshoot/agents/broken.md": "---\nname: broken\n---\nNo description.\n",
		".offshoot/agents/pricey.md": "---\nname: pricey\ndescription: Costs.\nmodel: gpt-9\n---\nYou cost.\n",
		"file.txt":                   "a file",
	})
	tests := []struct {
		name  string
		flags AgentFlags
		vars  map[string]string
		want  string
	}{
		{"missing dir", AgentFlags{Dir: filepath.Join(e.ProjectDir, "nowhere")}, nil, "nowhere: no such directory; give the directory the agents should read"},
		{"dir is a file", AgentFlags{Dir: filepath.Join(e.ProjectDir, "file.txt")}, nil, "file.txt: not a directory"},
		{"negative max turns", AgentFlags{MaxTurns: -1}, nil, "--max-turns -1: give a number from 1 to 10000, or leave it out for 50"},
		{"save in no directory", AgentFlags{Save: filepath.Join(e.ProjectDir, "nowhere", "s.json")}, nil, "its directory: no such directory; give a file in an existing directory"},
		{"save to a directory", AgentFlags{Save: e.ProjectDir}, nil, "is a directory; give a file to write the snapshot to"},
		{"unknown agent", AgentFlags{Agent: "debugger"}, nil, "--agent debugger: no agent is called so (the agents are explore, general-purpose, plan, pricey, summary); see them with 'offshoot agents list'"},
		{"agent that did not load", AgentFlags{Agent: "broken"}, nil, "--agent broken did not load: "},
		{"unknown model", AgentFlags{Model: "gpt-9"}, nil, "--model gpt-9: no model is called so here; use one of "},
		{"no model configured", AgentFlags{}, map[string]string{ScriptEnv: ""}, "set LLM_MODEL_ID"},
		{"a directory too large", AgentFlags{Dir: large(t)}, nil, "its text files come to more than 4 MiB, the most the agents' files take; point --dir at a smaller directory, such as the part of the project the task is about"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &Env{ProjectDir: e.ProjectDir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: e.Getenv}
			if tt.vars != nil {
				env.Getenv = func(k string) string { return tt.vars[k] }
			}
			c, err := env.NewClient(t.Context(), tt.flags, nil)
			if c != nil {
				c.Close()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			for _, library := range []string{"Include", "Exclude", "MaxBytes"} {
				assert.NotContains(t, err.Error(), library, "advice for the command line, not for the library")
			}
			assert.Equal(t, ExitUsage, Code(err, true))
		})
	}
}

// large returns a directory of more text than a mount copies.
func large(t *testing.T) string {
	dir := t.TempDir()
	line := strings.Repeat("a", 99) + "\n"
	for i := range 100 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(strings.Repeat(line, 450)), 0o644))
	}
	return dir
}

func TestSaveSnapshot(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	ts, err := vfs.Tools(vfs.Options{})
	require.NoError(t, err)
	require.NoError(t, ts.Install(context.Background(), s))
	require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: "notes.md", Content: "hi\n", Version: 1}))

	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, SaveSnapshot(path, s))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"notes.md"`)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left")

	err = SaveSnapshot(filepath.Join(dir, "nowhere", "run.json"), s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "give a file in a directory you can write to")
}

func TestOnInterrupt(t *testing.T) {
	e := &Env{}
	assert.False(t, e.Interrupt(), "no handler: the program cancels the command")
	var calls []string
	restoreOuter := e.OnInterrupt(func() { calls = append(calls, "outer") })
	restoreInner := e.OnInterrupt(func() { calls = append(calls, "inner") })
	assert.True(t, e.Interrupt())
	restoreInner()
	assert.True(t, e.Interrupt())
	restoreOuter()
	assert.False(t, e.Interrupt())
	assert.Equal(t, []string{"inner", "outer"}, calls)
}

func TestLogger(t *testing.T) {
	var stderr bytes.Buffer
	l := (&Env{Stderr: &stderr}).Logger()
	l.Info("not shown")
	l.Warn("offshoot: a server is unavailable", "error", errors.New("MCP server \"notes\": exit status 1"))
	l.With("agent_id", "a1").WithGroup("run").Error("subagent: failed\x1b[2J", "turn", 3)
	l.Warn("no details", slog.Attr{})
	assert.Equal(t, `warning: offshoot: a server is unavailable (error=MCP server "notes": exit status 1)
error: subagent: failed`+"\uFFFD"+`[2J (agent_id=a1, run.turn=3)
warning: no details
`, stderr.String())
}

// The scripted model answers every command that needs a model.
func TestScriptedModels(t *testing.T) {
	e, _ := project(t, nil)
	r, err := e.Models()
	require.NoError(t, err)
	resp, err := r.Main().Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("Hi.")}})
	require.NoError(t, err)
	assert.Equal(t, "Hello.", resp.Message.Content)
}
