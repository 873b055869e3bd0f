package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
)

func envFunc(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
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

func mustEnv(getenv func(string) string) model.Config {
	c, err := modelconfig.FromEnv(getenv)
	if err != nil {
		panic(err)
	}
	return c
}
