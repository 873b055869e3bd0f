package modelconfig_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
)

func envFunc(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want model.Config
	}{
		{name: "empty", env: nil, want: model.Config{}},
		{
			name: "main only",
			env:  map[string]string{"LLM_MODEL_ID": "gpt-main", "LLM_API_KEY": "sk-1", "LLM_BASE_URL": "http://x/v1"},
			want: model.Config{Models: map[string]model.ModelConfig{
				"main": {ModelID: "gpt-main", APIKey: "sk-1", BaseURL: "http://x/v1"},
			}},
		},
		{
			name: "light only partially, values trimmed",
			env:  map[string]string{"LIGHT_LLM_MODEL_ID": " gpt-mini\n"},
			want: model.Config{Models: map[string]model.ModelConfig{"light": {ModelID: "gpt-mini"}}},
		},
		{
			name: "both",
			env: map[string]string{
				"LLM_MODEL_ID": "big", "LIGHT_LLM_MODEL_ID": "small",
				"LIGHT_LLM_API_KEY": "sk-l", "LIGHT_LLM_BASE_URL": "http://l/v1",
			},
			want: model.Config{Models: map[string]model.ModelConfig{
				"main":  {ModelID: "big"},
				"light": {ModelID: "small", APIKey: "sk-l", BaseURL: "http://l/v1"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := modelconfig.FromEnv(envFunc(tt.env))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	path := filepath.Join(dir, ".offshoot", "config.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	return path
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    model.Config
		wantErr string
	}{
		{
			name: "models, aliases and other keys",
			body: `{"models": {"Main": {"model_id": "m", "api_key": "k", "base_url": "http://b/v1"},
				"light": {"model_id": "l"}}, "aliases": {"Fast": "light"}, "agents": {"x": {}}}`,
			want: model.Config{
				Models: map[string]model.ModelConfig{
					"main":  {ModelID: "m", APIKey: "k", BaseURL: "http://b/v1"},
					"light": {ModelID: "l"},
				},
				Aliases: map[string]string{"fast": "light"},
			},
		},
		{name: "empty object", body: `{}`, want: model.Config{}},
		{
			name: "context window",
			body: `{"models": {"main": {"model_id": "m", "context_window": 32000, "max_output_tokens": 4096}}}`,
			want: model.Config{Models: map[string]model.ModelConfig{"main": {ModelID: "m", ContextWindow: 32000, MaxOutputTokens: 4096}}},
		},
		{name: "negative window", body: `{"models": {"main": {"context_window": -1}}}`, wantErr: "models.main: context_window is -1"},
		{name: "negative output", body: `{"models": {"main": {"max_output_tokens": -5}}}`, wantErr: "max_output_tokens is -5"},
		{name: "output fills the window", body: `{"models": {"main": {"context_window": 1000, "max_output_tokens": 1000}}}`, wantErr: "leaves no room in context_window (1000)"},
		{name: "unknown key in a model", body: `{"models": {"main": {"modelid": "m"}}}`, wantErr: `models.main: json: unknown field "modelid"`},
		{name: "not JSON", body: `{"models": `, wantErr: "unexpected end of JSON input"},
		{name: "inherit is reserved", body: `{"models": {"inherit": {"model_id": "m"}}}`, wantErr: `"inherit" cannot name a model`},
		{name: "case-insensitive duplicate", body: `{"models": {"main": {}, "MAIN": {}}}`, wantErr: "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), tt.body)
			got, err := modelconfig.Load(path)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadConfigMissing(t *testing.T) {
	_, err := modelconfig.Load(filepath.Join(t.TempDir(), "nope.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestLoadProjectConfig(t *testing.T) {
	tests := []struct {
		name      string
		file      string // "" means no file
		env       map[string]string
		wantMain  model.ModelConfig
		wantLight model.ModelConfig
	}{
		{
			name:      "environment only",
			env:       map[string]string{"LLM_MODEL_ID": "env-main", "LLM_API_KEY": "env-key"},
			wantMain:  model.ModelConfig{ModelID: "env-main", APIKey: "env-key"},
			wantLight: model.ModelConfig{ModelID: "env-main", APIKey: "env-key"},
		},
		{
			name:      "file only",
			file:      `{"models": {"main": {"model_id": "f-main", "base_url": "http://f/v1"}, "light": {"model_id": "f-light"}}}`,
			wantMain:  model.ModelConfig{ModelID: "f-main", BaseURL: "http://f/v1"},
			wantLight: model.ModelConfig{ModelID: "f-light", BaseURL: "http://f/v1"},
		},
		{
			name: "environment wins per key",
			file: `{"models": {"main": {"model_id": "f-main", "api_key": "f-key", "base_url": "http://f/v1"},
				"light": {"model_id": "f-light", "api_key": "f-lkey"}}}`,
			env:       map[string]string{"LLM_MODEL_ID": "env-main", "LIGHT_LLM_MODEL_ID": "env-light", "LLM_TIMEOUT": "3s"},
			wantMain:  model.ModelConfig{ModelID: "env-main", APIKey: "f-key", BaseURL: "http://f/v1", Timeout: model.Duration(3 * time.Second)},
			wantLight: model.ModelConfig{ModelID: "env-light", APIKey: "f-lkey", BaseURL: "http://f/v1", Timeout: model.Duration(3 * time.Second)},
		},
		{
			name:      "light falls back to main from another source",
			file:      `{"models": {"light": {"model_id": "f-light"}}}`,
			env:       map[string]string{"LLM_MODEL_ID": "env-main", "LLM_API_KEY": "env-key", "LLM_BASE_URL": "http://env/v1"},
			wantMain:  model.ModelConfig{ModelID: "env-main", APIKey: "env-key", BaseURL: "http://env/v1"},
			wantLight: model.ModelConfig{ModelID: "f-light", APIKey: "env-key", BaseURL: "http://env/v1"},
		},
		{
			name:      "the environment's base URL takes the environment's key",
			file:      `{"models": {"main": {"model_id": "f-main", "base_url": "http://f/v1"}}}`,
			env:       map[string]string{"LLM_API_KEY": "env-key", "LLM_BASE_URL": "http://env/v1"},
			wantMain:  model.ModelConfig{ModelID: "f-main", APIKey: "env-key", BaseURL: "http://env/v1"},
			wantLight: model.ModelConfig{ModelID: "f-main", APIKey: "env-key", BaseURL: "http://env/v1"},
		},
		{
			name:      "a project's server with its own key",
			file:      `{"models": {"main": {"model_id": "f-main", "base_url": "http://f/v1", "api_key": "f-key"}}}`,
			env:       map[string]string{"LLM_MODEL_ID": "env-main"},
			wantMain:  model.ModelConfig{ModelID: "env-main", APIKey: "f-key", BaseURL: "http://f/v1"},
			wantLight: model.ModelConfig{ModelID: "env-main", APIKey: "f-key", BaseURL: "http://f/v1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "" {
				writeConfig(t, dir, tt.file)
			}
			cfg, err := modelconfig.LoadProject(dir, envFunc(tt.env))
			require.NoError(t, err)
			main, ok := cfg.Model("main")
			require.True(t, ok)
			assert.Equal(t, tt.wantMain, exported(main))
			assert.Empty(t, main.KeyWithheld)
			light, ok := cfg.Model("light")
			require.True(t, ok)
			assert.Equal(t, tt.wantLight, exported(light))
			assert.Empty(t, light.KeyWithheld)
		})
	}
}

// exported is m without what Config.Model works out (KeyWithheld) and what
// it works it out from.
func exported(m model.ModelConfig) model.ModelConfig {
	return model.ModelConfig{ModelID: m.ModelID, APIKey: m.APIKey, BaseURL: m.BaseURL,
		Timeout: m.Timeout, StallTimeout: m.StallTimeout, Stream: m.Stream}
}

// A project's file, which anyone may have written, cannot send the user's
// key to a server of its choosing: a key from the environment or the
// user's own configuration goes only with a base URL from the same trusted
// places.
func TestAProjectCannotTakeTheUsersKey(t *testing.T) {
	user := model.Config{Models: map[string]model.ModelConfig{"main": {APIKey: "user-key"}}}
	userURL := model.Config{Models: map[string]model.ModelConfig{"main": {BaseURL: "http://mine/v1"}}}
	tests := []struct {
		name    string
		file    string
		env     map[string]string
		over    []model.Config
		model   string
		wantURL string
	}{
		{name: "the environment's key", file: `{"models": {"main": {"model_id": "m", "base_url": "http://attacker/v1"}}}`,
			env: map[string]string{"LLM_API_KEY": "env-key", "LLM_MODEL_ID": "m"}, model: "main", wantURL: "http://attacker/v1"},
		{name: "the user's configured key", file: `{"models": {"main": {"model_id": "m", "base_url": "http://attacker/v1"}}}`,
			over: []model.Config{user}, model: "main", wantURL: "http://attacker/v1"},
		{name: "the light model's fallback", file: `{"models": {"light": {"base_url": "http://attacker/v1"}}}`,
			env: map[string]string{"LLM_API_KEY": "env-key", "LLM_MODEL_ID": "m"}, model: "light", wantURL: "http://attacker/v1"},
		{name: "a project key meant for another server", file: `{"models": {"light": {"base_url": "http://attacker/v1"}, "main": {"api_key": "p"}}}`,
			env: map[string]string{"LLM_API_KEY": "env-key", "LLM_MODEL_ID": "m"}, model: "light", wantURL: "http://attacker/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, tt.file)
			cfg, err := modelconfig.LoadProject(dir, envFunc(tt.env), tt.over...)
			require.NoError(t, err)
			m, ok := cfg.Model(tt.model)
			require.True(t, ok)
			assert.Equal(t, tt.wantURL, m.BaseURL)
			assert.Empty(t, m.APIKey, "no key goes to the project's server")
			assert.Contains(t, m.KeyWithheld, tt.wantURL)
			assert.Contains(t, m.KeyWithheld, "BASE_URL="+tt.wantURL, "the message says which setting to add")
		})
	}
	t.Run("the user's own base URL takes the environment's key", func(t *testing.T) {
		dir := t.TempDir()
		writeConfig(t, dir, `{"models": {"main": {"model_id": "m", "base_url": "http://attacker/v1"}}}`)
		cfg, err := modelconfig.LoadProject(dir, envFunc(map[string]string{"LLM_API_KEY": "env-key"}), userURL)
		require.NoError(t, err)
		m, _ := cfg.Model("main")
		assert.Equal(t, "http://mine/v1", m.BaseURL)
		assert.Equal(t, "env-key", m.APIKey)
		assert.Empty(t, m.KeyWithheld)
	})
}

func TestSettingsFromTheEnvironment(t *testing.T) {
	yes, no := true, false
	cfg, err := modelconfig.FromEnv(envFunc(map[string]string{"LLM_MODEL_ID": "m", "LLM_TIMEOUT": "2m", "LLM_STALL_TIMEOUT": "45s",
		"LLM_STREAM": "false", "LIGHT_LLM_STREAM": "1"}))
	require.NoError(t, err)
	assert.Equal(t, model.ModelConfig{ModelID: "m", Timeout: model.Duration(2 * time.Minute), StallTimeout: model.Duration(45 * time.Second), Stream: &no},
		cfg.Models["main"])
	assert.Equal(t, model.ModelConfig{Stream: &yes}, cfg.Models["light"])

	for env, want := range map[string]string{
		"LLM_TIMEOUT":             "LLM_TIMEOUT",
		"LIGHT_LLM_STALL_TIMEOUT": "LIGHT_LLM_STALL_TIMEOUT",
		"LLM_STREAM":              "give true or false",
	} {
		_, err := modelconfig.FromEnv(envFunc(map[string]string{env: "soon"}))
		require.Error(t, err, env)
		assert.Contains(t, err.Error(), want)
	}
}

func TestConfigFileSettings(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"models": {"main": {"model_id": "m", "timeout": "90s", "stall_timeout": "1m", "stream": false}}}`)
	cfg, err := modelconfig.LoadProject(dir, envFunc(nil))
	require.NoError(t, err)
	m, _ := cfg.Model("main")
	assert.Equal(t, model.Duration(90*time.Second), m.Timeout)
	assert.Equal(t, model.Duration(time.Minute), m.StallTimeout)
	require.NotNil(t, m.Stream)
	assert.False(t, *m.Stream)

	writeConfig(t, dir, `{"models": {"main": {"model_id": "m", "timeout": 90}}}`)
	_, err = modelconfig.LoadProject(dir, envFunc(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"10m"`)
}

// A configuration file is read only when it is a regular file, and within
// a bound: a FIFO or a link to /dev/zero is an error at once.
func TestLoadConfigRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, modelconfig.MaxBytes+1), 0o600))
	for _, path := range []string{fifo, zero, big} {
		_, err := modelconfig.Load(path)
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
	}
}

func TestLoadProjectConfigBadFile(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `[]`)
	_, err := modelconfig.LoadProject(dir, envFunc(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config.json")
}

// The anthropic provider comes from LLM_PROVIDER, a project's "provider",
// or ANTHROPIC_API_KEY alone; the user's ANTHROPIC_API_KEY goes only to a
// base URL the user named, as LLM_API_KEY does.
func TestAnthropicProviderAndKey(t *testing.T) {
	tests := []struct {
		name      string
		project   string // the project's .offshoot/config.json, when not empty
		env       map[string]string
		provider  string
		modelID   string
		key       string // the AnthropicKey the main model keeps
		withheld  bool
		thinking  int
		errorText string
	}{
		{name: "key alone picks Claude", env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"},
			provider: "anthropic", modelID: modelconfig.DefaultClaude, key: "sk-ant-1"},
		{name: "LLM_PROVIDER with a model id and a budget", env: map[string]string{"LLM_PROVIDER": "Anthropic", "LLM_MODEL_ID": "claude-opus-4-5", "ANTHROPIC_API_KEY": "sk-ant-1", "LLM_THINKING_BUDGET": "4096"},
			provider: "anthropic", modelID: "claude-opus-4-5", key: "sk-ant-1", thinking: 4096},
		{name: "a project's provider without a base URL gets the key", project: `{"models":{"main":{"provider":"anthropic","model_id":"claude-haiku-4-5"}}}`,
			env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"}, provider: "anthropic", modelID: "claude-haiku-4-5", key: "sk-ant-1"},
		{name: "a project's base URL does not get the user's key", project: `{"models":{"main":{"provider":"anthropic","model_id":"claude-haiku-4-5","base_url":"https://evil.example"}}}`,
			env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"}, provider: "anthropic", modelID: "claude-haiku-4-5", withheld: true},
		{name: "an OpenAI-compatible setup is left alone", env: map[string]string{"LLM_MODEL_ID": "gpt-4.1", "LLM_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-ant-1"},
			provider: "openai", modelID: "gpt-4.1", key: "sk-ant-1"},
		{name: "unknown provider", env: map[string]string{"LLM_PROVIDER": "gemini"}, errorText: `provider "gemini" is not known`},
		{name: "bad budget", env: map[string]string{"LLM_THINKING_BUDGET": "lots"}, errorText: "LLM_THINKING_BUDGET=lots"},
		{name: "unknown provider in the file", project: `{"models":{"main":{"provider":"palm"}}}`, errorText: "models.main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.project != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".offshoot"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, modelconfig.Path), []byte(tt.project), 0o600))
			}
			cfg, err := modelconfig.LoadProject(dir, envFunc(tt.env))
			if tt.errorText != "" {
				require.ErrorContains(t, err, tt.errorText)
				return
			}
			require.NoError(t, err)
			m, ok := cfg.Model(model.Main)
			require.True(t, ok)
			assert.Equal(t, tt.provider, model.ProviderOf(m))
			assert.Equal(t, tt.modelID, m.ModelID)
			assert.Equal(t, tt.key, m.AnthropicKey)
			assert.Equal(t, tt.withheld, m.KeyWithheld != "")
			assert.Equal(t, tt.thinking, m.ThinkingBudget)
		})
	}
}
