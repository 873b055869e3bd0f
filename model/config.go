package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
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

// The settings the message of ErrNotConfigured names: the variables and
// the file the offshoot command reads.
const (
	envModelID      = "LLM_MODEL_ID"
	envAPIKey       = "LLM_API_KEY"
	envBaseURL      = "LLM_BASE_URL"
	envLightModelID = "LIGHT_LLM_MODEL_ID"
	envLightAPIKey  = "LIGHT_LLM_API_KEY"
	envLightBaseURL = "LIGHT_LLM_BASE_URL"
	configPath      = ".offshoot/config.json"
)

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
	// Timeout bounds a whole call to the model, retries included; 0
	// means the adapter's default. In JSON a Go duration such as "10m".
	Timeout Duration `json:"timeout,omitzero"`
	// StallTimeout bounds a silence within an answer (between two pieces
	// of a streamed answer, or while the body of a whole one arrives); 0
	// means the adapter's default. In JSON a Go duration such as "5m".
	StallTimeout Duration `json:"stall_timeout,omitzero"`
	// Stream says whether to ask for answers as they are generated; nil
	// means yes. Some servers answer tool calls correctly only when not
	// streamed.
	Stream *bool `json:"stream,omitempty"`
	// Provider names the API the model speaks: "openai" (any
	// OpenAI-compatible server) or "anthropic" (Anthropic's Messages
	// API). Empty means the one the base URL or the model id says:
	// anthropic for api.anthropic.com, or for a "claude-…" model id
	// without a base URL; openai otherwise (see ProviderOf).
	Provider string `json:"provider,omitempty"`
	// ThinkingBudget, when positive, turns on extended thinking with that
	// many tokens to think in (Anthropic; at least 1024, and below the
	// answer's max_tokens). 0 means no extended thinking.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// AnthropicKey is the user's ANTHROPIC_API_KEY: the key sent to
	// Anthropic's API when the model's provider is anthropic and it has
	// no APIKey. Like APIKey, it is withheld from a base URL that only a
	// project's file named, and never printed.
	AnthropicKey string `json:"-"`
	// ContextWindow is how many tokens the model reads at most, its
	// request and its answer together; 0 means the default for its family
	// (see DefaultContextWindow).
	ContextWindow int `json:"context_window,omitempty"`
	// MaxOutputTokens is how many tokens an answer may take, which the
	// runner keeps free in the window; 0 means the default for its family.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`

	// KeyWithheld is set by Config.Model when a key was configured but is
	// not sent: it came from the user (the environment or the user's own
	// configuration) while the base URL came from a project's file, which
	// may have been written by anyone. Withheld names the settings.
	KeyWithheld string `json:"-"`

	projectURL, projectKey bool // BaseURL, APIKey came from a project's file
}

// Merge returns c with every field that is set in over replaced by over's
// value.
func (c ModelConfig) Merge(over ModelConfig) ModelConfig {
	if over.ModelID != "" {
		c.ModelID = over.ModelID
	}
	if over.APIKey != "" {
		c.APIKey, c.projectKey = over.APIKey, over.projectKey
	}
	if over.BaseURL != "" {
		c.BaseURL, c.projectURL = over.BaseURL, over.projectURL
	}
	if over.Timeout != 0 {
		c.Timeout = over.Timeout
	}
	if over.StallTimeout != 0 {
		c.StallTimeout = over.StallTimeout
	}
	if over.Stream != nil {
		c.Stream = over.Stream
	}
	if over.Provider != "" {
		c.Provider = over.Provider
	}
	if over.ThinkingBudget != 0 {
		c.ThinkingBudget = over.ThinkingBudget
	}
	if over.AnthropicKey != "" {
		c.AnthropicKey = over.AnthropicKey
	}
	if over.ContextWindow != 0 {
		c.ContextWindow = over.ContextWindow
	}
	if over.MaxOutputTokens != 0 {
		c.MaxOutputTokens = over.MaxOutputTokens
	}
	return c
}

// IsZero reports whether no field is set.
func (c ModelConfig) IsZero() bool {
	return c.ModelID == "" && c.APIKey == "" && c.BaseURL == "" && c.Timeout == 0 && c.StallTimeout == 0 && c.Stream == nil &&
		c.Provider == "" && c.ThinkingBudget == 0 && c.AnthropicKey == "" &&
		c.ContextWindow == 0 && c.MaxOutputTokens == 0
}

// The providers ProviderOf names.
const (
	// ProviderOpenAI is any server that speaks OpenAI's Chat Completions.
	ProviderOpenAI = "openai"
	// ProviderAnthropic is Anthropic's Messages API.
	ProviderAnthropic = "anthropic"
)

// ProviderOf says which API the model c configures speaks: its Provider
// when set (lower-cased), else anthropic when the base URL is Anthropic's
// (api.anthropic.com) or, without a base URL, when the model id is a
// Claude one ("claude-…"), else openai.
func ProviderOf(c ModelConfig) string {
	if p := normName(c.Provider); p != "" {
		return p
	}
	base := strings.ToLower(c.BaseURL)
	switch {
	case strings.HasPrefix(base, "https://api.anthropic.com"):
		return ProviderAnthropic
	case base == "" && strings.HasPrefix(strings.ToLower(c.ModelID), "claude-"):
		return ProviderAnthropic
	}
	return ProviderOpenAI
}

// String describes the configuration without revealing the API key.
func (c ModelConfig) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("{model_id: %q, base_url: %q, api_key: %s}", c.ModelID, c.BaseURL, key)
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("90s", "10m").
type Duration time.Duration

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a Go duration string such as "90s" or "10m".
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("a duration must be a string such as \"90s\" or \"10m\"")
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration; write it as Go does, such as \"90s\" or \"10m\"", s)
	}
	return v, nil
}

// GoString is String, so that %#v does not reveal the API key either.
func (c ModelConfig) GoString() string { return "model.ModelConfig" + c.String() }

// Config is the model configuration: named models and aliases, for
// NewRouter. Build it by hand (the offshoot command reads it from the
// LLM_* variables and .offshoot/config.json); combine sources with Merge.
// The zero value is an empty configuration.
type Config struct {
	// Models maps a name (main, light, or any other) to its settings.
	// Names are lower case.
	Models map[string]ModelConfig `json:"models,omitempty"`
	// Aliases maps an alias (such as "sonnet") to a model name or another
	// alias.
	Aliases map[string]string `json:"aliases,omitempty"`
}

// FromProject returns c marked as read from a project's file — a file in
// a directory the user may just have cloned, which anyone may have
// written. A key the user configured elsewhere (the environment, their own
// configuration) is never sent to a base URL that a project's file named:
// Config.Model withholds it. A project's file that names its own base URL
// and key keeps them.
func (c Config) FromProject() Config {
	out := Config{Aliases: c.Aliases}
	for name, m := range c.Models {
		if out.Models == nil {
			out.Models = map[string]ModelConfig{}
		}
		m.projectURL, m.projectKey = m.BaseURL != "", m.APIKey != ""
		out.Models[name] = m
	}
	return out
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
		main = withhold(n, main)
		return main, main.ModelID != ""
	}
	own, present := c.Models[n]
	if !present && n != Light {
		return ModelConfig{}, false
	}
	m = withhold(n, main.Merge(own))
	return m, m.ModelID != ""
}

// withhold removes a user's key from a model whose base URL a project's
// file named, and says why in KeyWithheld.
func withhold(name string, m ModelConfig) ModelConfig {
	if m.projectURL && m.projectKey {
		m.AnthropicKey = "" // the project's server takes the project's key
	}
	if !m.projectURL || m.projectKey || (m.APIKey == "" && m.AnthropicKey == "") {
		return m
	}
	env := "LLM_BASE_URL"
	if name == Light {
		env = "LIGHT_LLM_BASE_URL"
	}
	m.APIKey, m.AnthropicKey = "", ""
	m.KeyWithheld = fmt.Sprintf("the project's %s sends the %s model to %s, and your API key is sent only to a server you named yourself: "+
		"to send it there, set %s=%s (or \"base_url\" in your own ~/%s); to use the project's server with its own key, give \"api_key\" beside its \"base_url\"",
		configPath, name, m.BaseURL, env, m.BaseURL, configPath)
	return m
}

func normName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
