// Package modelconfig reads the model configuration of the offshoot
// command and the examples: the LLM_* and LIGHT_LLM_* variables and the
// "models" and "aliases" of .offshoot/config.json, into a model.Config for
// model.NewRouter.
//
// A project's file is marked as such (model.Config.FromProject), so that a
// key the user configured is never sent to a base URL that the project's
// file named.
package modelconfig

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
	"github.com/offshoot-dev/offshoot/model"
)

// EnvModelID is the variable that names the main model's id; the other
// variables FromEnv reads are LLM_API_KEY, LLM_BASE_URL, LLM_TIMEOUT,
// LLM_STALL_TIMEOUT, LLM_STREAM, LLM_PROVIDER and LLM_THINKING_BUDGET,
// the same names with the LIGHT_ prefix for the light model, and
// ANTHROPIC_API_KEY (the key for models whose provider is anthropic and
// that have no key of their own).
const EnvModelID = "LLM_MODEL_ID"

// EnvAnthropicKey is the variable of the user's key for Anthropic's API.
const EnvAnthropicKey = "ANTHROPIC_API_KEY"

// checkProvider refuses a provider the offshoot command has no adapter
// for.
func checkProvider(p string) error {
	switch normName(p) {
	case "", model.ProviderOpenAI, model.ProviderAnthropic:
		return nil
	}
	return fmt.Errorf("provider %q is not known; give %q (any OpenAI-compatible server) or %q (Anthropic's Messages API)",
		p, model.ProviderOpenAI, model.ProviderAnthropic)
}

// Path is where LoadProject looks for the configuration file, relative to
// the project directory.
const Path = ".offshoot/config.json"

// maxBytes is the most Load reads of a configuration file; a larger file
// is an error.
const maxBytes = 1 << 20

// FromEnv reads the LLM_* (main) and LIGHT_LLM_* (light) variables
// through getenv (os.Getenv when nil). Unset or empty variables leave the
// corresponding fields unset. A timeout that is not a Go duration, or a
// stream setting that is not a boolean, is an error naming the variable.
func FromEnv(getenv func(string) string) (model.Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var errs []error
	read := func(prefix string) model.ModelConfig {
		m := model.ModelConfig{
			ModelID: strings.TrimSpace(getenv(prefix + "LLM_MODEL_ID")),
			APIKey:  strings.TrimSpace(getenv(prefix + "LLM_API_KEY")),
			BaseURL: strings.TrimSpace(getenv(prefix + "LLM_BASE_URL")),
		}
		for name, dst := range map[string]*model.Duration{prefix + "LLM_TIMEOUT": &m.Timeout, prefix + "LLM_STALL_TIMEOUT": &m.StallTimeout} {
			if v := getenv(name); strings.TrimSpace(v) != "" {
				d, err := parseDuration(v)
				if err != nil {
					errs = append(errs, fmt.Errorf("model: %s: %w", name, err))
				}
				*dst = model.Duration(d)
			}
		}
		m.Provider = normName(getenv(prefix + "LLM_PROVIDER"))
		if err := checkProvider(m.Provider); err != nil {
			errs = append(errs, fmt.Errorf("model: %sLLM_PROVIDER: %w", prefix, err))
		}
		if v := strings.TrimSpace(getenv(prefix + "LLM_THINKING_BUDGET")); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("model: %sLLM_THINKING_BUDGET=%s: give a number of tokens, such as 4096 (0 for none)", prefix, v))
			}
			m.ThinkingBudget = n
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
	var c model.Config
	main := read("")
	main.AnthropicKey = strings.TrimSpace(getenv(EnvAnthropicKey))
	if m := main; !m.IsZero() {
		c.Models = map[string]model.ModelConfig{model.Main: m}
	}
	if l := read("LIGHT_"); !l.IsZero() {
		if c.Models == nil {
			c.Models = map[string]model.ModelConfig{}
		}
		c.Models[model.Light] = l
	}
	if err := errors.Join(errs...); err != nil {
		return model.Config{}, err
	}
	return c, nil
}

// Load reads the "models" and "aliases" keys of a JSON configuration
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
func Load(path string) (model.Config, error) {
	data, err := regfile.Read(path, maxBytes)
	if err != nil {
		return model.Config{}, fmt.Errorf("model: read config: %w", err)
	}
	c, err := parse(data)
	if err != nil {
		return model.Config{}, fmt.Errorf("model: config %s: %w", path, err)
	}
	return c, nil
}

// LoadProject returns the configuration of the project in dir: the file
// dir/.offshoot/config.json if it exists, marked as a project's (see
// model.Config.FromProject), overridden key by key by the configurations
// in over (the user's own file, say) and then by the environment read
// through getenv (os.Getenv when nil).
func LoadProject(dir string, getenv func(string) string, over ...model.Config) (model.Config, error) {
	file, err := Load(filepath.Join(dir, Path))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return model.Config{}, err
	}
	env, err := FromEnv(getenv)
	if err != nil {
		return model.Config{}, err
	}
	cfg := file.FromProject()
	for _, o := range over {
		cfg = cfg.Merge(o)
	}
	return withClaude(cfg.Merge(env)), nil
}

// DefaultClaude is the main model's id when its provider is anthropic and
// no model id is configured (anthropic.DefaultModel).
const DefaultClaude = "claude-sonnet-4-5"

// withClaude gives a main model whose provider is anthropic but which
// names no model id DefaultClaude, and makes the provider anthropic when
// nothing but ANTHROPIC_API_KEY is configured.
func withClaude(cfg model.Config) model.Config {
	main := cfg.Models[model.Main]
	if main.ModelID != "" || main.AnthropicKey == "" && normName(main.Provider) != model.ProviderAnthropic {
		return cfg
	}
	if main.Provider == "" && main.BaseURL == "" && main.APIKey == "" {
		main.Provider = model.ProviderAnthropic
	}
	if model.ProviderOf(main) != model.ProviderAnthropic {
		return cfg
	}
	main.ModelID = DefaultClaude
	return cfg.Merge(model.Config{Models: map[string]model.ModelConfig{model.Main: main}})
}

func parse(data []byte) (model.Config, error) {
	var raw struct {
		Models  map[string]json.RawMessage `json:"models"`
		Aliases map[string]string          `json:"aliases"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return model.Config{}, err
	}
	var c model.Config
	names := make([]string, 0, len(raw.Models))
	for name := range raw.Models {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		dec := json.NewDecoder(bytes.NewReader(raw.Models[name]))
		dec.DisallowUnknownFields()
		var m model.ModelConfig
		if err := dec.Decode(&m); err != nil {
			return model.Config{}, fmt.Errorf("models.%s: %w (known keys: model_id, api_key, base_url, timeout, stall_timeout, stream, provider, thinking_budget, context_window, max_output_tokens)", name, err)
		}
		if err := checkWindow(m); err != nil {
			return model.Config{}, fmt.Errorf("models.%s: %w", name, err)
		}
		if err := checkProvider(m.Provider); err != nil {
			return model.Config{}, fmt.Errorf("models.%s: %w", name, err)
		}
		if m.ThinkingBudget < 0 {
			return model.Config{}, fmt.Errorf("models.%s: thinking_budget is %d; give a number of tokens, such as 4096 (0 for none)", name, m.ThinkingBudget)
		}
		m.Provider = normName(m.Provider)
		n := normName(name)
		if n == "" || n == model.Inherit {
			return model.Config{}, fmt.Errorf("models: %q cannot name a model", name)
		}
		if _, dup := c.Models[n]; dup {
			return model.Config{}, fmt.Errorf("models: %q is given twice (names are case-insensitive)", n)
		}
		if c.Models == nil {
			c.Models = map[string]model.ModelConfig{}
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

// parseDuration reads a variable's duration as model.Duration reads one
// in JSON.
func parseDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration; write it as Go does, such as \"90s\" or \"10m\"", s)
	}
	return v, nil
}

func normName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// checkWindow checks a model's context_window and max_output_tokens: not
// negative, and the answer's bound leaves room for a request.
func checkWindow(m model.ModelConfig) error {
	switch {
	case m.ContextWindow < 0:
		return fmt.Errorf("context_window is %d; give the model's window in tokens, such as 128000, or leave it out for its family's default", m.ContextWindow)
	case m.MaxOutputTokens < 0:
		return fmt.Errorf("max_output_tokens is %d; give the most tokens of an answer, such as 16384, or leave it out for its family's default", m.MaxOutputTokens)
	case m.ContextWindow > 0 && m.MaxOutputTokens >= m.ContextWindow:
		return fmt.Errorf("max_output_tokens (%d) leaves no room in context_window (%d) for the request; give a smaller max_output_tokens", m.MaxOutputTokens, m.ContextWindow)
	}
	return nil
}
