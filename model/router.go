package model

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Factory builds the Model for one configured name. The Router calls it
// once per distinct configuration; model/openai provides one
// (openai.Factory), and tests can return scripted models.
type Factory func(name string, cfg ModelConfig) (Model, error)

// defaultAliases returns the aliases every Router knows unless the
// configuration redefines them: the Claude model names used by agent
// definitions, mapped to the configured models (sonnet and opus → main,
// haiku → light).
func defaultAliases() map[string]string {
	return map[string]string{"sonnet": Main, "opus": Main, "haiku": Light}
}

// Router resolves model names to Models: main and light (light falls back
// to main), any other configured name, aliases, and inherit (the caller's
// model). A Router is immutable and safe for concurrent use.
type Router struct {
	models  map[string]Model
	aliases map[string]string // alias → configured name
}

// notConfigured is the error for a configuration without a main model.
var notConfigured = fmt.Errorf("%w: set %s (the model id) and, as needed, %s and %s (for a server other than OpenAI) "+
	"in the environment, or \"models\": {\"main\": {\"model_id\": …, \"api_key\": …, \"base_url\": …}} in %s; "+
	"%s, %s and %s optionally configure the light model",
	ErrNotConfigured, envModelID, envAPIKey, envBaseURL, configPath, envLightModelID, envLightAPIKey, envLightBaseURL)

// NewRouter builds a Router from cfg, creating each configured model with
// factory. Main must be configured (ErrNotConfigured otherwise, with a
// message naming the variables to set); light is always available and takes
// every unset setting from main; other names in cfg.Models take unset
// settings from main too. Models with identical effective settings share
// one instance. Every router knows the aliases sonnet and opus (→ main)
// and haiku (→ light), the Claude model names agent definitions use,
// unless a configured model has that name; cfg.Aliases adds to them and
// overrides them. An alias must lead to a configured name.
func NewRouter(cfg Config, factory Factory) (*Router, error) {
	if factory == nil {
		return nil, errors.New("model: NewRouter needs a Factory (for example openai.Factory)")
	}
	if _, ok := cfg.Model(Main); !ok {
		return nil, notConfigured
	}
	names := []string{Main, Light}
	for name := range cfg.Models {
		if n := normName(name); n != Main && n != Light {
			names = append(names, n)
		}
	}
	slices.Sort(names[2:])
	models := make(map[string]Model, len(names))
	built := make(map[ModelConfig]Model, len(names))
	for _, name := range names {
		if name == Inherit || name == "" {
			return nil, fmt.Errorf("model: %q cannot name a configured model", name)
		}
		mc, ok := cfg.Model(name)
		if !ok {
			return nil, fmt.Errorf("model: model %q has no model id", name)
		}
		if m, ok := built[mc]; ok {
			models[name] = m
			continue
		}
		m, err := factory(name, mc)
		if err != nil {
			return nil, fmt.Errorf("model: build model %q (%s): %w", name, mc, err)
		}
		if m == nil {
			return nil, fmt.Errorf("model: factory returned no model for %q", name)
		}
		built[mc] = m
		models[name] = m
	}
	return newRouter(models, cfg.Aliases)
}

// NewStaticRouter builds a Router over models that already exist, for tests
// and programs that wire models by hand. models must contain Main; Light
// defaults to the main model. Aliases work as in NewRouter.
func NewStaticRouter(models map[string]Model, aliases map[string]string) (*Router, error) {
	ms := make(map[string]Model, len(models)+1)
	for name, m := range models {
		n := normName(name)
		if n == "" || n == Inherit {
			return nil, fmt.Errorf("model: %q cannot name a model", name)
		}
		if m == nil {
			return nil, fmt.Errorf("model: model %q is nil", name)
		}
		ms[n] = m
	}
	if ms[Main] == nil {
		return nil, fmt.Errorf("%w: NewStaticRouter needs a %q model", ErrNotConfigured, Main)
	}
	if ms[Light] == nil {
		ms[Light] = ms[Main]
	}
	return newRouter(ms, aliases)
}

func newRouter(models map[string]Model, configured map[string]string) (*Router, error) {
	raw := defaultAliases()
	for alias := range raw {
		if _, shadowed := models[alias]; shadowed {
			delete(raw, alias)
		}
	}
	for alias, target := range configured {
		a := normName(alias)
		if a == "" || a == Inherit {
			return nil, fmt.Errorf("model: %q cannot be an alias", alias)
		}
		if _, shadowed := models[a]; shadowed {
			return nil, fmt.Errorf("model: alias %q has the name of a configured model; rename the alias", alias)
		}
		raw[a] = normName(target)
	}
	aliases := make(map[string]string, len(raw))
	for alias := range raw {
		target, seen := raw[alias], map[string]bool{alias: true}
		for models[target] == nil {
			next, isAlias := raw[target]
			if !isAlias {
				return nil, fmt.Errorf("model: alias %q points to %q, which is not configured (configured: %s)",
					alias, target, strings.Join(sortedKeys(models), ", "))
			}
			if seen[target] {
				return nil, fmt.Errorf("model: alias %q is part of a cycle", alias)
			}
			seen[target] = true
			target = next
		}
		aliases[alias] = target
	}
	return &Router{models: models, aliases: aliases}, nil
}

// Resolve returns the Model called name. "inherit" and "" mean the
// caller's model, inherit; when inherit is nil (a top-level caller) they
// mean main. Names are case-insensitive. An unknown name is an error
// matching ErrUnknownModel that lists the configured names and aliases.
func (r *Router) Resolve(name string, inherit Model) (Model, error) {
	n := normName(name)
	if n == "" || n == Inherit {
		if inherit != nil {
			return inherit, nil
		}
		return r.models[Main], nil
	}
	if m, ok := r.models[n]; ok {
		return m, nil
	}
	if target, ok := r.aliases[n]; ok {
		return r.models[target], nil
	}
	return nil, fmt.Errorf("%w %q: configured models are %s; aliases are %s; or use %q for the caller's model",
		ErrUnknownModel, name, strings.Join(sortedKeys(r.models), ", "), r.describeAliases(), Inherit)
}

// ModelName returns the name of the configured model name resolves to —
// the name to report a model by: name itself (lower-cased, trimmed) when
// it is a configured model, else the model its alias leads to ("haiku" →
// "light" unless configured otherwise). It reports false for "inherit",
// "" and names the router does not know.
func (r *Router) ModelName(name string) (string, bool) {
	n := normName(name)
	if _, ok := r.models[n]; ok {
		return n, true
	}
	if target, ok := r.aliases[n]; ok {
		return target, true
	}
	return "", false
}

// Main returns the main model.
func (r *Router) Main() Model { return r.models[Main] }

// Names returns the configured model names and the aliases, sorted.
func (r *Router) Names() []string {
	names := append(sortedKeys(r.models), sortedKeys(r.aliases)...)
	slices.Sort(names)
	return names
}

func (r *Router) describeAliases() string {
	if len(r.aliases) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(r.aliases))
	for _, a := range sortedKeys(r.aliases) {
		parts = append(parts, a+" → "+r.aliases[a])
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
