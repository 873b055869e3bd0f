package model_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			assert.Equal(t, tt.want, model.ConfigFromEnv(envFunc(tt.env)))
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
		{name: "unknown key in a model", body: `{"models": {"main": {"modelid": "m"}}}`, wantErr: `models.main: json: unknown field "modelid"`},
		{name: "not JSON", body: `{"models": `, wantErr: "unexpected end of JSON input"},
		{name: "inherit is reserved", body: `{"models": {"inherit": {"model_id": "m"}}}`, wantErr: `"inherit" cannot name a model`},
		{name: "case-insensitive duplicate", body: `{"models": {"main": {}, "MAIN": {}}}`, wantErr: "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, t.TempDir(), tt.body)
			got, err := model.LoadConfig(path)
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
	_, err := model.LoadConfig(filepath.Join(t.TempDir(), "nope.json"))
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
			env:       map[string]string{"LLM_API_KEY": "env-key", "LIGHT_LLM_MODEL_ID": "env-light"},
			wantMain:  model.ModelConfig{ModelID: "f-main", APIKey: "env-key", BaseURL: "http://f/v1"},
			wantLight: model.ModelConfig{ModelID: "env-light", APIKey: "f-lkey", BaseURL: "http://f/v1"},
		},
		{
			name:      "light falls back to main from another source",
			file:      `{"models": {"light": {"base_url": "http://local/v1"}}}`,
			env:       map[string]string{"LLM_MODEL_ID": "env-main", "LLM_API_KEY": "env-key"},
			wantMain:  model.ModelConfig{ModelID: "env-main", APIKey: "env-key"},
			wantLight: model.ModelConfig{ModelID: "env-main", APIKey: "env-key", BaseURL: "http://local/v1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "" {
				writeConfig(t, dir, tt.file)
			}
			cfg, err := model.LoadProjectConfig(dir, envFunc(tt.env))
			require.NoError(t, err)
			main, ok := cfg.Model("main")
			require.True(t, ok)
			assert.Equal(t, tt.wantMain, main)
			light, ok := cfg.Model("light")
			require.True(t, ok)
			assert.Equal(t, tt.wantLight, light)
		})
	}
}

func TestLoadProjectConfigBadFile(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `[]`)
	_, err := model.LoadProjectConfig(dir, envFunc(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config.json")
}

func TestConfigMergeDoesNotModify(t *testing.T) {
	base := model.Config{Models: map[string]model.ModelConfig{"main": {ModelID: "a"}}, Aliases: map[string]string{"x": "main"}}
	over := model.Config{Models: map[string]model.ModelConfig{"MAIN": {APIKey: "k"}}, Aliases: map[string]string{"x": "light"}}
	got := base.Merge(over)
	assert.Equal(t, model.ModelConfig{ModelID: "a", APIKey: "k"}, got.Models["main"])
	assert.Equal(t, "light", got.Aliases["x"])
	assert.Equal(t, model.ModelConfig{ModelID: "a"}, base.Models["main"])
	assert.Equal(t, "main", base.Aliases["x"])
}

func TestConfigModel(t *testing.T) {
	cfg := model.Config{Models: map[string]model.ModelConfig{
		"main": {ModelID: "m", APIKey: "k"},
		"big":  {ModelID: "b"},
	}}
	tests := []struct {
		name   string
		want   model.ModelConfig
		wantOK bool
	}{
		{"main", model.ModelConfig{ModelID: "m", APIKey: "k"}, true},
		{"light", model.ModelConfig{ModelID: "m", APIKey: "k"}, true},
		{"Big", model.ModelConfig{ModelID: "b", APIKey: "k"}, true},
		{"nope", model.ModelConfig{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := cfg.Model(tt.name)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	_, ok := model.Config{}.Model("light")
	assert.False(t, ok, "light is not configured without main or its own model id")
}

func TestModelConfigHidesKey(t *testing.T) {
	mc := model.ModelConfig{ModelID: "m", APIKey: "sk-secret"}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		s := sprintf(format, mc)
		assert.NotContains(t, s, "sk-secret", format)
		assert.Contains(t, s, "api_key: set", format)
	}
}
