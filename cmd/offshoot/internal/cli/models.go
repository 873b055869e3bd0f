package cli

import (
	"errors"
	"os"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// ScriptEnv names the environment variable that makes every command that
// needs a model answer from a scripted model instead: the file it names is
// a script for scripted.LoadScript. It is a testing aid, so that tests of
// the commands run offline and deterministically.
const ScriptEnv = "OFFSHOOT_SCRIPTED_MODEL"

// ModelConfig reads the model configuration of the project: the "models"
// and "aliases" of .offshoot/config.json, overridden by the LLM_* and
// LIGHT_LLM_* variables. A file that cannot be read is a usage error.
func (e *Env) ModelConfig() (model.Config, error) {
	cfg, err := model.LoadProjectConfig(e.ProjectDir, e.Getenv)
	if err != nil {
		return model.Config{}, Usagef("%w; fix the \"models\" of %s", err, model.ConfigPath)
	}
	return cfg, nil
}

// Models returns the router of the models a command runs on: the scripted
// model of ScriptEnv when it is set, otherwise the configured models
// through the OpenAI-compatible adapter, which retries what a provider
// may answer better later (openai.DefaultConfig). With no model
// configured the error, a usage error, says which variables or keys to
// set.
func (e *Env) Models() (*model.Router, error) {
	if path := e.Getenv(ScriptEnv); path != "" {
		return e.scriptedModels(path)
	}
	cfg, err := e.ModelConfig()
	if err != nil {
		return nil, err
	}
	r, err := model.NewRouter(cfg, openai.Factory(openai.DefaultConfig()))
	if errors.Is(err, model.ErrNotConfigured) {
		return nil, Usagef("%w", err)
	}
	if err != nil {
		return nil, Usagef("%w; fix the model configuration (%s or the LLM_* variables)", err, model.ConfigPath)
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
	r, err := model.NewRouter(cfg, openai.Factory(openai.Config{}))
	if err != nil {
		e.Warn("%v", err)
		return nil
	}
	return r
}

func (e *Env) scriptedModels(path string) (*model.Router, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Usagef("%s=%s: %w; point it at a script file, or unset it to use the configured model", ScriptEnv, path, err)
	}
	defer f.Close()
	m, err := scripted.LoadScript(f)
	if err != nil {
		return nil, Usagef("%s=%s: %w", ScriptEnv, path, err)
	}
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: m}, nil)
	if err != nil {
		return nil, Usagef("%s=%s: %w", ScriptEnv, path, err)
	}
	return r, nil
}
