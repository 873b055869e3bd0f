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
	"strconv"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/internal/regfile"
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
	envAPIKey       = "LLM_API_KEY"        // main model API key
	envBaseURL      = "LLM_BASE_URL"       // main model base URL
	envTimeout      = "LLM_TIMEOUT"        // main model: bound on a whole call, a Go duration ("10m")
	envStallTimeout = "LLM_STALL_TIMEOUT"  // main model: bound on a silence within an answer ("5m")
	envStream       = "LLM_STREAM"         // main model: "false" asks for whole answers
	envLightModelID = "LIGHT_LLM_MODEL_ID" // light model id
	envLightAPIKey  = "LIGHT_LLM_API_KEY"  // light model API key
	envLightBaseURL = "LIGHT_LLM_BASE_URL" // light model base URL
	// The light model's LIGHT_LLM_TIMEOUT, LIGHT_LLM_STALL_TIMEOUT and
	// LIGHT_LLM_STREAM are the main model's names with the LIGHT_ prefix.
)

// ConfigPath is where LoadProjectConfig looks for the configuration file,
// relative to the project directory.
const ConfigPath = ".offshoot/config.json"

// maxConfigBytes is the most LoadConfig reads of a configuration file; a
// larger file is an error.
const maxConfigBytes = 1 << 20

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
	return c
}

// IsZero reports whether no field is set.
func (c ModelConfig) IsZero() bool {
	return c.ModelID == "" && c.APIKey == "" && c.BaseURL == "" && c.Timeout == 0 && c.StallTimeout == 0 && c.Stream == nil
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
// corresponding fields unset. A timeout that is not a Go duration, or a
// stream setting that is not a boolean, is an error naming the variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var errs []error
	read := func(prefix string) ModelConfig {
		m := ModelConfig{
			ModelID: strings.TrimSpace(getenv(prefix + "LLM_MODEL_ID")),
			APIKey:  strings.TrimSpace(getenv(prefix + "LLM_API_KEY")),
			BaseURL: strings.TrimSpace(getenv(prefix + "LLM_BASE_URL")),
		}
		for name, dst := range map[string]*Duration{prefix + "LLM_TIMEOUT": &m.Timeout, prefix + "LLM_STALL_TIMEOUT": &m.StallTimeout} {
			if v := getenv(name); strings.TrimSpace(v) != "" {
				d, err := parseDuration(v)
				if err != nil {
					errs = append(errs, fmt.Errorf("model: %s: %w", name, err))
				}
				*dst = Duration(d)
			}
		}
		if v := strings.TrimSpace(getenv(prefix + "LLM_STREAM")); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("model: %sLLM_STREAM=%s: give true or false", prefix, v))
			}
			m.Stream = &b
		}
		return m
	}
	var c Config
	if m := read(""); !m.IsZero() {
		c.Models = map[string]ModelConfig{Main: m}
	}
	if l := read("LIGHT_"); !l.IsZero() {
		if c.Models == nil {
			c.Models = map[string]ModelConfig{}
		}
		c.Models[Light] = l
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
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
// fs.ErrNotExist. Only a regular file of at most 1 MiB is read: a
// FIFO, a device or a link to one is an error, never a wait.
func LoadConfig(path string) (Config, error) {
	data, err := regfile.Read(path, maxConfigBytes)
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
// file dir/.offshoot/config.json if it exists, marked as a project's (see
// Config.FromProject), overridden key by key by the configurations in
// over (the user's own file, say) and then by the environment read through
// getenv (os.Getenv when nil).
func LoadProjectConfig(dir string, getenv func(string) string, over ...Config) (Config, error) {
	file, err := LoadConfig(filepath.Join(dir, ConfigPath))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Config{}, err
	}
	env, err := ConfigFromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := file.FromProject()
	for _, o := range over {
		cfg = cfg.Merge(o)
	}
	return cfg.Merge(env), nil
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
			return Config{}, fmt.Errorf("models.%s: %w (known keys: model_id, api_key, base_url, timeout, stall_timeout, stream)", name, err)
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
	if !m.projectURL || m.projectKey || m.APIKey == "" {
		return m
	}
	env := "LLM_BASE_URL"
	if name == Light {
		env = "LIGHT_LLM_BASE_URL"
	}
	m.APIKey = ""
	m.KeyWithheld = fmt.Sprintf("the project's %s sends the %s model to %s, and your API key is sent only to a server you named yourself: "+
		"to send it there, set %s=%s (or \"base_url\" in your own ~/%s); to use the project's server with its own key, give \"api_key\" beside its \"base_url\"",
		ConfigPath, name, m.BaseURL, env, m.BaseURL, ConfigPath)
	return m
}

func normName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
