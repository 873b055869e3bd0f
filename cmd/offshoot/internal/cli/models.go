package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/openai"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// maxScriptBytes bounds the script file of ScriptEnv.
const maxScriptBytes = 16 << 20

// ModelFlags are the model settings of the command line, for every model
// a command uses; they win over the environment and the files.
type ModelFlags struct {
	// Timeout bounds a whole model call (--timeout); 0 leaves it to the
	// configuration.
	Timeout time.Duration
	// StallTimeout bounds a silence of the model's server
	// (--stall-timeout); 0 leaves it to the configuration.
	StallTimeout time.Duration
	// NoStream asks for whole answers (--no-stream).
	NoStream bool
}

// Add registers the flags on cmd.
func (f *ModelFlags) Add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.DurationVar(&f.Timeout, "timeout", 0, fmt.Sprintf("the longest a model call may take, retries included, such as 90s or 20m (default %s, or \"timeout\" in the configuration, or LLM_TIMEOUT)", openai.DefaultConfig().Timeout))
	fl.DurationVar(&f.StallTimeout, "stall-timeout", 0, fmt.Sprintf("the longest the model's server may stay silent within an answer (default %s, or \"stall_timeout\", or LLM_STALL_TIMEOUT)", openai.DefaultConfig().StallTimeout))
	fl.BoolVar(&f.NoStream, "no-stream", false, "ask the model for whole answers instead of streamed ones, for servers that mishandle streaming (or \"stream\": false, or LLM_STREAM=false)")
}

// over returns the settings as a configuration for the names of cfg,
// main and light.
func (f ModelFlags) over(cfg model.Config) (model.Config, error) {
	if f.Timeout < 0 || f.StallTimeout < 0 {
		return model.Config{}, Usagef("--timeout and --stall-timeout take a positive duration, such as 90s or 20m")
	}
	m := model.ModelConfig{Timeout: model.Duration(f.Timeout), StallTimeout: model.Duration(f.StallTimeout)}
	if f.NoStream {
		no := false
		m.Stream = &no
	}
	out := model.Config{Models: map[string]model.ModelConfig{}}
	if m.IsZero() {
		return out, nil
	}
	for _, name := range append([]string{model.Main, model.Light}, keys(cfg.Models)...) {
		out.Models[name] = m
	}
	return out, nil
}

func keys(m map[string]model.ModelConfig) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// UserConfigFile is the user's own configuration: HomeDir/.offshoot/config.json,
// or "" when there is no home directory. Its settings win over a
// project's, and only its keys and base URLs are trusted together (see
// model.Config.FromProject).
func (e *Env) UserConfigFile() string {
	if e.HomeDir == "" {
		return ""
	}
	return filepath.Join(e.HomeDir, filepath.FromSlash(modelconfig.Path))
}

// ScriptEnv names the environment variable that makes every command that
// needs a model answer from a scripted model instead: the file it names is
// a script for scripted.LoadScript. It is a testing aid, so that tests of
// the commands run offline and deterministically.
const ScriptEnv = "OFFSHOOT_SCRIPTED_MODEL"

// ModelConfig reads the model configuration: the "models" and "aliases"
// of the project's .offshoot/config.json, overridden by the user's own
// (UserConfigFile), then by the LLM_* and LIGHT_LLM_* variables. A file
// that cannot be read is a usage error.
func (e *Env) ModelConfig() (model.Config, error) {
	var user []model.Config
	if path := e.UserConfigFile(); path != "" && path != filepath.Join(e.ProjectDir, filepath.FromSlash(modelconfig.Path)) {
		u, err := modelconfig.Load(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return model.Config{}, Usagef("%w; fix the \"models\" of %s", err, e.Show(path))
		default:
			user = append(user, u)
		}
	}
	cfg, err := modelconfig.LoadProject(e.ProjectDir, e.Getenv, user...)
	if err != nil {
		return model.Config{}, Usagef("%w; fix the \"models\" of %s or the LLM_* variables", err, modelconfig.Path)
	}
	return cfg, nil
}

// Models returns the router of the models a command runs on: the scripted
// model of ScriptEnv when it is set, otherwise the configured models
// through the adapter of their provider — the OpenAI-compatible one or
// Anthropic's — which retries what a provider may answer better later
// (openai.DefaultConfig, anthropic.DefaultConfig). With no model
// configured the error, a usage error, says which variables or keys to
// set.
//
// A key the user configured is not sent to a base URL that the project's
// file named (model.Config.FromProject): a warning says so, and which
// setting sends it there.
func (e *Env) Models(flags ...ModelFlags) (*model.Router, error) {
	if path := e.Getenv(ScriptEnv); path != "" {
		return e.scriptedModels(path)
	}
	cfg, err := e.ModelConfig()
	if err != nil {
		return nil, err
	}
	for _, f := range flags {
		over, err := f.over(cfg)
		if err != nil {
			return nil, err
		}
		cfg = cfg.Merge(over)
	}
	warned := map[string]bool{} // base URLs
	for _, name := range append([]string{model.Main, model.Light}, keys(cfg.Models)...) {
		if m, ok := cfg.Model(name); ok && m.KeyWithheld != "" && !warned[m.BaseURL] {
			warned[m.BaseURL] = true
			e.Warn("no API key is sent to %s: %s", Printable(m.BaseURL), m.KeyWithheld)
		}
	}
	r, err := model.NewRouter(cfg, providers(openai.DefaultConfig(), anthropic.DefaultConfig()))
	if errors.Is(err, model.ErrNotConfigured) {
		return nil, Usagef("%w", err)
	}
	if err != nil {
		return nil, Usagef("%w; fix the model configuration (%s or the LLM_* variables)", err, modelconfig.Path)
	}
	return r, nil
}

// KnownModels returns the configured models for checking the model names
// of agent definitions, or nil (only main, light and the Claude names are
// then known) when none is configured. A configuration that cannot be read
// is a warning.
func (e *Env) KnownModels() *model.Router {
	if e.Getenv(ScriptEnv) != "" {
		return nil
	}
	cfg, err := e.ModelConfig()
	if err != nil {
		e.Warn("%v", err)
		return nil
	}
	if _, ok := cfg.Model(model.Main); !ok {
		return nil
	}
	r, err := model.NewRouter(cfg, providers(openai.Config{}, anthropic.Config{}))
	if err != nil {
		e.Warn("%v", err)
		return nil
	}
	return r
}

// providers is the factory of the configured models: each through the
// adapter of the API its configuration says it speaks (model.ProviderOf),
// the OpenAI-compatible one or Anthropic's.
func providers(oa openai.Config, an anthropic.Config) model.Factory {
	forOpenAI, forAnthropic := openai.Factory(oa), anthropic.Factory(an)
	return func(name string, mc model.ModelConfig) (model.Model, error) {
		switch p := model.ProviderOf(mc); p {
		case model.ProviderAnthropic:
			return forAnthropic(name, mc)
		case model.ProviderOpenAI:
			return forOpenAI(name, mc)
		default:
			return nil, fmt.Errorf("provider %q is not known; give %q or %q", p, model.ProviderOpenAI, model.ProviderAnthropic)
		}
	}
}

func (e *Env) scriptedModels(path string) (*model.Router, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, Usagef("%s=%s: %w; point it at a script file, or unset it to use the configured model", ScriptEnv, path, err)
	}
	defer f.Close()
	data, err := regfile.ReadAll(f, path, maxScriptBytes)
	if err != nil {
		return nil, Usagef("%s=%s: %w", ScriptEnv, path, err)
	}
	m, err := scripted.LoadScript(bytes.NewReader(data))
	if err != nil {
		return nil, Usagef("%s=%s: %w", ScriptEnv, path, err)
	}
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: m}, nil)
	if err != nil {
		return nil, Usagef("%s=%s: %w", ScriptEnv, path, err)
	}
	return r, nil
}
