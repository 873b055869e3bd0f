package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Names a Router always understands.
const (
	// Main is the name of the main model. It must be configured.
	Main = "main"
	// Light is the name of the light model (cheaper, faster). Each of its
	// settings falls back to the main model's.
	Light = "light"
	// Inherit means the caller's model.
	Inherit = "inherit"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvModelID      = "LLM_MODEL_ID"       // main model id
	EnvAPIKey       = "LLM_API_KEY"        // main model API key
	EnvBaseURL      = "LLM_BASE_URL"       // main model base URL
	EnvLightModelID = "LIGHT_LLM_MODEL_ID" // light model id
	EnvLightAPIKey  = "LIGHT_LLM_API_KEY"  // light model API key
	EnvLightBaseURL = "LIGHT_LLM_BASE_URL" // light model base URL
)

// ConfigPath is where LoadProjectConfig looks for the configuration file,
// relative to the project directory.
const ConfigPath = ".offshoot/config.json"

// ModelConfig says how to reach one model. An empty field is unset: it
// falls back to the main model's value (for models other than main) or to
// the adapter's default.
type ModelConfig struct {
	// ModelID is the provider's model id, such as "gpt-4.1-mini".
	ModelID string `json:"model_id,omitempty"`
	// APIKey is the key sent to the provider. It is never printed by
	// String or GoString.
	APIKey string `json:"api_key,omitempty"`
	// BaseURL is the API root of an OpenAI-compatible server, such as
	// "http://localhost:8000/v1"; empty means the adapter's default.
	BaseURL string `json:"base_url,omitempty"`
}

// Merge returns c with every field that is set in over replaced by over's
// value.
func (c ModelConfig) Merge(over ModelConfig) ModelConfig {
	if over.ModelID != "" {
		c.ModelID = over.ModelID
	}
	if over.APIKey != "" {
		c.APIKey = over.APIKey
	}
	if over.BaseURL != "" {
		c.BaseURL = over.BaseURL
	}
	return c
}

// IsZero reports whether no field is set.
func (c ModelConfig) IsZero() bool { return c == ModelConfig{} }

// String describes the configuration without revealing the API key.
func (c ModelConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("{model_id: %q, base_url: %q, api_key: %s}", c.ModelID, c.BaseURL, key)
}

// GoString is String, so that %#v does not reveal the API key either.
func (c ModelConfig) GoString() string { return "model.ModelConfig" + c.String() }

// Config is the model configuration: named models and aliases. Build it
// with ConfigFromEnv, LoadConfig or LoadProjectConfig; combine sources with
// Merge. The zero value is an empty configuration.
type Config struct {
	// Models maps a name (main, light, or any other) to its settings.
	// Names are lower case.
	Models map[string]ModelConfig `json:"models,omitempty"`
	// Aliases maps an alias (such as "sonnet") to a model name or another
	// alias.
	Aliases map[string]string `json:"aliases,omitempty"`
}

// ConfigFromEnv reads the LLM_* (main) and LIGHT_LLM_* (light) variables
// through getenv (os.Getenv when nil). Unset or empty variables leave the
// corresponding fields unset.
func ConfigFromEnv(getenv func(string) string) Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	read := func(id, key, url string) ModelConfig {
		return ModelConfig{
			ModelID: strings.TrimSpace(getenv(id)),
			APIKey:  strings.TrimSpace(getenv(key)),
			BaseURL: strings.TrimSpace(getenv(url)),
		}
	}
	var c Config
	if m := read(EnvModelID, EnvAPIKey, EnvBaseURL); !m.IsZero() {
		c.Models = map[string]ModelConfig{Main: m}
	}
	if l := read(EnvLightModelID, EnvLightAPIKey, EnvLightBaseURL); !l.IsZero() {
		if c.Models == nil {
			c.Models = map[string]ModelConfig{}
		}
		c.Models[Light] = l
	}
	return c
}

// LoadConfig reads the "models" and "aliases" keys of a JSON configuration
// file such as .offshoot/config.json:
//
//	{"models": {"main": {"model_id": "…", "api_key": "…", "base_url": "…"},
//	            "light": {"model_id": "…"}},
//	 "aliases": {"sonnet": "main"}}
//
// Other top-level keys (such as "agents") are ignored; unknown keys inside
// a model entry are errors. A missing file is an error matching
// fs.ErrNotExist.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("model: read config: %w", err)
	}
	c, err := parseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("model: config %s: %w", path, err)
	}
	return c, nil
}

// LoadProjectConfig returns the configuration of the project in dir: the
// file dir/.offshoot/config.json if it exists, overridden key by key by the
// environment read through getenv (os.Getenv when nil).
func LoadProjectConfig(dir string, getenv func(string) string) (Config, error) {
	file, err := LoadConfig(filepath.Join(dir, ConfigPath))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Config{}, err
	}
	return file.Merge(ConfigFromEnv(getenv)), nil
}

func parseConfig(data []byte) (Config, error) {
	var raw struct {
		Models  map[string]json.RawMessage `json:"models"`
		Aliases map[string]string          `json:"aliases"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, err
	}
	var c Config
	names := make([]string, 0, len(raw.Models))
	for name := range raw.Models {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		dec := json.NewDecoder(bytes.NewReader(raw.Models[name]))
		dec.DisallowUnknownFields()
		var m ModelConfig
		if err := dec.Decode(&m); err != nil {
			return Config{}, fmt.Errorf("models.%s: %w (known keys: model_id, api_key, base_url)", name, err)
		}
		n := normName(name)
		if n == "" || n == Inherit {
			return Config{}, fmt.Errorf("models: %q cannot name a model", name)
		}
		if _, dup := c.Models[n]; dup {
			return Config{}, fmt.Errorf("models: %q is given twice (names are case-insensitive)", n)
		}
		if c.Models == nil {
			c.Models = map[string]ModelConfig{}
		}
		c.Models[n] = m
	}
	for alias, target := range raw.Aliases {
		if c.Aliases == nil {
			c.Aliases = map[string]string{}
		}
		c.Aliases[normName(alias)] = normName(target)
	}
	return c, nil
}

// Merge returns a new Config in which over's settings win key by key: a
// model field set in over replaces c's, an unset one keeps c's; aliases in
// over replace c's of the same name. Neither c nor over is modified.
func (c Config) Merge(over Config) Config {
	var out Config
	for _, src := range []Config{c, over} {
		for name, m := range src.Models {
			if out.Models == nil {
				out.Models = map[string]ModelConfig{}
			}
			n := normName(name)
			out.Models[n] = out.Models[n].Merge(m)
		}
		for alias, target := range src.Aliases {
			if out.Aliases == nil {
				out.Aliases = map[string]string{}
			}
			out.Aliases[normName(alias)] = normName(target)
		}
	}
	return out
}

// Model returns the effective settings of the model called name: for main
// its own; for any other name its own with each unset field taken from
// main. ok is false when the name is not configured (no entry, or no model
// id even after the fallback). Light is configured whenever main is.
func (c Config) Model(name string) (m ModelConfig, ok bool) {
	n := normName(name)
	main := c.Models[Main]
	if n == Main {
		return main, main.ModelID != ""
	}
	own, present := c.Models[n]
	if !present && n != Light {
		return ModelConfig{}, false
	}
	m = main.Merge(own)
	return m, m.ModelID != ""
}

func normName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
