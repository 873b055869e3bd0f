package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
)

func TestCode(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		started bool
		want    int
	}{
		{"nil", nil, true, ExitOK},
		{"usage", Usagef("bad"), true, ExitUsage},
		{"wrapped usage", fmt.Errorf("ctx: %w", Usagef("bad")), true, ExitUsage},
		{"failed", Failf("bad"), false, ExitFailed},
		{"silent", Silent(ExitFailed), true, ExitFailed},
		{"cobra before start", errors.New(`unknown command "x"`), false, ExitUsage},
		{"plain after start", errors.New("boom"), true, ExitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Code(tt.err, tt.started))
		})
	}
	assert.Equal(t, "exit status 1", Silent(1).Error())
	assert.Equal(t, "bad 2", Usagef("bad %d", 2).Error())
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		name      string
		project   string
		home      string
		homeGiven bool
		envHome   string
		wantErr   string
		wantHome  string
	}{
		{name: "defaults", envHome: dir, wantHome: dir},
		{name: "no home at all", wantHome: ""},
		{name: "home given", home: dir, homeGiven: true, envHome: "/elsewhere", wantHome: dir},
		{name: "missing home from the environment is kept", envHome: filepath.Join(dir, "none"), wantHome: filepath.Join(dir, "none")},
		{name: "missing home given", home: filepath.Join(dir, "none"), homeGiven: true, wantErr: "--home " + filepath.Join(dir, "none") + ": no such directory; give an existing directory"},
		{name: "missing project", project: filepath.Join(dir, "none"), wantErr: "no such directory; give an existing project directory"},
		{name: "project is a file", project: file, wantErr: "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Env{ProjectDir: tt.project, HomeDir: tt.home, Getenv: func(k string) string {
				if k == "HOME" {
					return tt.envHome
				}
				return ""
			}}
			if tt.homeGiven {
				e.SetHomeGiven()
			}
			err := e.Resolve()
			assert.True(t, e.Started())
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Equal(t, ExitUsage, Code(err, true))
				return
			}
			require.NoError(t, err)
			assert.True(t, filepath.IsAbs(e.ProjectDir))
			assert.Equal(t, tt.wantHome, e.HomeDir)
		})
	}
}

func TestShow(t *testing.T) {
	e := &Env{ProjectDir: "/work/proj", HomeDir: "/home/ann"}
	tests := map[string]string{
		"/work/proj/.offshoot/agents/a.md": ".offshoot/agents/a.md",
		"/home/ann/.offshoot/agents/b.md":  "~/.offshoot/agents/b.md",
		"/work/projector/c.md":             "/work/projector/c.md",
		"/work/proj":                       "/work/proj",
		"relative/d.md":                    "relative/d.md",
		"":                                 "",
	}
	for in, want := range tests {
		assert.Equal(t, want, e.Show(in), in)
	}
	inside := &Env{ProjectDir: "/home/ann/proj", HomeDir: "/home/ann"}
	assert.Equal(t, "x.md", inside.Show("/home/ann/proj/x.md"), "the project comes first")
	assert.Equal(t, "~/y.md", inside.Show("/home/ann/y.md"))
}

func TestArgs(t *testing.T) {
	cmd := &cobra.Command{Use: "diff A B"}
	tests := []struct {
		names []string
		args  []string
		want  string
	}{
		{nil, []string{"x"}, "diff takes no arguments, got 1; usage: diff"},
		{[]string{"NAME"}, nil, "diff takes one argument, NAME, got 0"},
		{[]string{"A", "B"}, []string{"a"}, "diff takes the arguments A and B, got 1"},
		{[]string{"A", "B", "C"}, nil, "the arguments A, B and C, got 0"},
	}
	for _, tt := range tests {
		err := Args(tt.names...)(cmd, tt.args)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
		assert.Equal(t, ExitUsage, Code(err, true))
	}
	assert.NoError(t, Args("A", "B")(cmd, []string{"a", "b"}))
}

func TestModels(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{}
	e := &Env{ProjectDir: dir, Getenv: func(k string) string { return vars[k] }}

	_, err := e.Models()
	require.ErrorIs(t, err, model.ErrNotConfigured)
	assert.Equal(t, ExitUsage, Code(err, true))
	assert.Nil(t, e.KnownModels())

	vars[modelconfig.EnvModelID] = "gpt-test"
	r, err := e.Models()
	require.NoError(t, err)
	assert.NotNil(t, r.Main())
	assert.NotNil(t, e.KnownModels())

	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".offshoot"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, modelconfig.Path), []byte(`{"models": {"main": {"modelid": "x"}}}`), 0o644))
	_, err = e.Models()
	require.Error(t, err)
	assert.Equal(t, ExitUsage, Code(err, true))
	assert.Contains(t, err.Error(), `fix the "models" of .offshoot/config.json`)

	script := filepath.Join(dir, "script.json")
	require.NoError(t, os.WriteFile(script, []byte(`{"turns": [{"text": "hi"}]}`), 0o644))
	vars[ScriptEnv] = script
	r, err = e.Models()
	require.NoError(t, err, "the script wins over the configuration")
	light, err := r.Resolve(model.Light, nil)
	require.NoError(t, err)
	assert.Same(t, r.Main(), light)
}

// Each configured model goes through the adapter of its provider: Claude
// through Anthropic's API, anything else through the OpenAI-compatible
// one; an agent's sonnet, opus or haiku configured by name is a Claude id.
func TestModelsByProvider(t *testing.T) {
	tests := []struct {
		name     string
		vars     map[string]string
		provider string
		id       string
	}{
		{"ANTHROPIC_API_KEY alone", map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"}, "anthropic", modelconfig.DefaultClaude},
		{"LLM_PROVIDER", map[string]string{"LLM_PROVIDER": "anthropic", "LLM_MODEL_ID": "claude-opus-4-5"}, "anthropic", "claude-opus-4-5"},
		{"a Claude id", map[string]string{"LLM_MODEL_ID": "claude-haiku-4-5"}, "anthropic", "claude-haiku-4-5"},
		{"OpenAI-compatible", map[string]string{"LLM_MODEL_ID": "gpt-4.1", "LLM_BASE_URL": "http://localhost:8000/v1"}, "openai", "gpt-4.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Env{ProjectDir: t.TempDir(), Getenv: func(k string) string { return tt.vars[k] }}
			r, err := e.Models()
			require.NoError(t, err)
			d := model.Describe(r.Main())
			assert.Equal(t, tt.provider, d.Provider)
			assert.Equal(t, tt.id, d.ID)
		})
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".offshoot"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, modelconfig.Path), []byte(`{"models": {"main": {"provider": "anthropic", "model_id": "claude-sonnet-4-5"},
		"opus": {"model_id": "claude-opus-4-5"}, "haiku": {"model_id": "claude-haiku-4-5"}}}`), 0o644))
	e := &Env{ProjectDir: dir, Getenv: func(string) string { return "" }}
	r, err := e.Models()
	require.NoError(t, err)
	for name, id := range map[string]string{"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-5", "haiku": "claude-haiku-4-5", "inherit": "claude-sonnet-4-5"} {
		m, err := r.Resolve(name, nil)
		require.NoError(t, err, name)
		assert.Equal(t, id, model.Describe(m).ID, name)
		assert.Equal(t, "anthropic", model.Describe(m).Provider, name)
	}
}
