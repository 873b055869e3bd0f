package model_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// fakeModel is a Model that remembers the settings it was built with.
type fakeModel struct {
	name string
	cfg  model.ModelConfig
}

func (f *fakeModel) Generate(context.Context, *model.Request) (*model.Response, error) {
	return &model.Response{Model: f.cfg.ModelID}, nil
}

func fakeFactory(built *[]string) model.Factory {
	return func(name string, cfg model.ModelConfig) (model.Model, error) {
		if built != nil {
			*built = append(*built, name)
		}
		return &fakeModel{name: name, cfg: cfg}, nil
	}
}

func TestNewRouterNotConfigured(t *testing.T) {
	tests := []struct {
		name string
		cfg  model.Config
	}{
		{"empty", model.Config{}},
		{"light only", mustEnv(envFunc(map[string]string{"LIGHT_LLM_MODEL_ID": "small"}))},
		{"key without model id", mustEnv(envFunc(map[string]string{"LLM_API_KEY": "sk"}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.NewRouter(tt.cfg, fakeFactory(nil))
			require.ErrorIs(t, err, model.ErrNotConfigured)
			for _, v := range []string{"LLM_MODEL_ID", "LLM_API_KEY", "LLM_BASE_URL", "LIGHT_LLM_MODEL_ID", ".offshoot/config.json"} {
				assert.Contains(t, err.Error(), v)
			}
		})
	}
}

func TestRouterResolve(t *testing.T) {
	cfg := model.Config{
		Models: map[string]model.ModelConfig{
			"main":  {ModelID: "big", APIKey: "k"},
			"light": {ModelID: "small"},
			"coder": {ModelID: "code", BaseURL: "http://c/v1"},
		},
		Aliases: map[string]string{"fast": "light", "quick": "fast", "opus": "coder"},
	}
	var built []string
	r, err := model.NewRouter(cfg, fakeFactory(&built))
	require.NoError(t, err)
	assert.Equal(t, []string{"main", "light", "coder"}, built)
	caller := &fakeModel{name: "caller"}

	tests := []struct {
		name    string
		inherit model.Model
		wantCfg model.ModelConfig
		wantErr string
	}{
		{name: "main", wantCfg: model.ModelConfig{ModelID: "big", APIKey: "k"}},
		{name: "LIGHT", wantCfg: model.ModelConfig{ModelID: "small", APIKey: "k"}},
		{name: "coder", wantCfg: model.ModelConfig{ModelID: "code", APIKey: "k", BaseURL: "http://c/v1"}},
		{name: "fast", wantCfg: model.ModelConfig{ModelID: "small", APIKey: "k"}},
		{name: "quick", wantCfg: model.ModelConfig{ModelID: "small", APIKey: "k"}},
		{name: "sonnet", wantCfg: model.ModelConfig{ModelID: "big", APIKey: "k"}},
		{name: "haiku", wantCfg: model.ModelConfig{ModelID: "small", APIKey: "k"}},
		{name: "opus", wantCfg: model.ModelConfig{ModelID: "code", APIKey: "k", BaseURL: "http://c/v1"}},
		{name: "inherit", inherit: caller},
		{name: "", inherit: caller},
		{name: "inherit", wantCfg: model.ModelConfig{ModelID: "big", APIKey: "k"}},
		{name: "gpt-5", wantErr: `unknown model name "gpt-5": configured models are coder, light, main; aliases are fast → light, haiku → light, opus → coder, quick → light, sonnet → main; or use "inherit"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := r.Resolve(tt.name, tt.inherit)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, model.ErrUnknownModel)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.inherit != nil {
				assert.Same(t, tt.inherit, m)
				return
			}
			assert.Equal(t, tt.wantCfg, m.(*fakeModel).cfg)
		})
	}
	assert.Equal(t, []string{"coder", "fast", "haiku", "light", "main", "opus", "quick", "sonnet"}, r.Names())
	assert.Equal(t, "big", r.Main().(*fakeModel).cfg.ModelID)
}

func TestRouterSharesIdenticalModels(t *testing.T) {
	var built []string
	r, err := model.NewRouter(mustEnv(envFunc(map[string]string{"LLM_MODEL_ID": "m"})), fakeFactory(&built))
	require.NoError(t, err)
	assert.Equal(t, []string{"main"}, built)
	light, err := r.Resolve("light", nil)
	require.NoError(t, err)
	assert.Same(t, r.Main(), light)
}

func TestNewRouterErrors(t *testing.T) {
	main := map[string]model.ModelConfig{"main": {ModelID: "m"}}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		cfg     model.Config
		factory model.Factory
		wantErr string
		is      error
	}{
		{name: "nil factory", cfg: model.Config{Models: main}, wantErr: "needs a Factory"},
		{
			name:    "factory error",
			cfg:     model.Config{Models: main},
			factory: func(string, model.ModelConfig) (model.Model, error) { return nil, boom },
			wantErr: `build model "main"`, is: boom,
		},
		{
			name:    "factory returns nil",
			cfg:     model.Config{Models: main},
			factory: func(string, model.ModelConfig) (model.Model, error) { return nil, nil },
			wantErr: "no model",
		},
		{
			name:    "alias to unknown",
			cfg:     model.Config{Models: main, Aliases: map[string]string{"x": "nope"}},
			factory: fakeFactory(nil), wantErr: `alias "x" points to "nope", which is not configured (configured: light, main)`,
		},
		{
			name:    "alias cycle",
			cfg:     model.Config{Models: main, Aliases: map[string]string{"a": "b", "b": "a"}},
			factory: fakeFactory(nil), wantErr: "cycle",
		},
		{
			name:    "alias shadows a model",
			cfg:     model.Config{Models: main, Aliases: map[string]string{"light": "main"}},
			factory: fakeFactory(nil), wantErr: "has the name of a configured model",
		},
		{
			name:    "inherit alias",
			cfg:     model.Config{Models: main, Aliases: map[string]string{"inherit": "main"}},
			factory: fakeFactory(nil), wantErr: "cannot be an alias",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.NewRouter(tt.cfg, tt.factory)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
		})
	}
}

func TestConfiguredModelShadowsDefaultAlias(t *testing.T) {
	cfg := model.Config{Models: map[string]model.ModelConfig{"main": {ModelID: "m"}, "sonnet": {ModelID: "s"}}}
	r, err := model.NewRouter(cfg, fakeFactory(nil))
	require.NoError(t, err)
	m, err := r.Resolve("sonnet", nil)
	require.NoError(t, err)
	assert.Equal(t, "s", m.(*fakeModel).cfg.ModelID)
}

func TestNewStaticRouter(t *testing.T) {
	main, light := &fakeModel{name: "main"}, &fakeModel{name: "light"}
	tests := []struct {
		name      string
		models    map[string]model.Model
		aliases   map[string]string
		resolve   string
		want      model.Model
		wantErr   string
		notConfig bool
	}{
		{name: "light defaults to main", models: map[string]model.Model{"main": main}, resolve: "light", want: main},
		{name: "explicit light", models: map[string]model.Model{"main": main, "light": light}, resolve: "haiku", want: light},
		{name: "alias", models: map[string]model.Model{"main": main, "light": light}, aliases: map[string]string{"cheap": "light"}, resolve: "cheap", want: light},
		{name: "no main", models: map[string]model.Model{"light": light}, notConfig: true},
		{name: "nil model", models: map[string]model.Model{"main": nil}, wantErr: "is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := model.NewStaticRouter(tt.models, tt.aliases)
			switch {
			case tt.notConfig:
				require.ErrorIs(t, err, model.ErrNotConfigured)
				return
			case tt.wantErr != "":
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			got, err := r.Resolve(tt.resolve, nil)
			require.NoError(t, err)
			assert.Same(t, tt.want, got)
		})
	}
}

// ModelName is the name of the configured model a name resolves to: the
// name of a model, an alias's target (through chains), and nothing for
// inherit or an unknown name.
func TestRouterModelName(t *testing.T) {
	cfg := model.Config{
		Models:  map[string]model.ModelConfig{"main": {ModelID: "big"}, "coder": {ModelID: "code"}, "haiku": {ModelID: "h"}},
		Aliases: map[string]string{"fast": "light", "quick": "fast", "opus": "coder"},
	}
	r, err := model.NewRouter(cfg, fakeFactory(nil))
	require.NoError(t, err)
	for _, tt := range []struct{ name, want string }{
		{"main", "main"}, {" LIGHT ", "light"}, {"coder", "coder"},
		{"fast", "light"}, {"quick", "light"}, {"sonnet", "main"}, {"opus", "coder"},
		{"haiku", "haiku"}, // a configured model of that name, not the default alias
		{"inherit", ""}, {"", ""}, {"gpt-5", ""},
	} {
		got, ok := r.ModelName(tt.name)
		assert.Equal(t, tt.want, got, tt.name)
		assert.Equal(t, tt.want != "", ok, tt.name)
	}
}
