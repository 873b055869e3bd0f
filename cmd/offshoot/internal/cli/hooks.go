package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/offshoot-dev/offshoot/hooks"
	projectfiles "github.com/offshoot-dev/offshoot/project"
)

// hookApprovalsKey is the key of the user's configuration file that
// records which projects' hooks the user approved: the project's
// directory → the hash of its hooks when approved.
const hookApprovalsKey = "approved_project_hooks"

// A project's hooks are commands that run on the user's machine, written
// by whoever wrote the project, so, as for its MCP servers, they run only
// once the user approved them for that project, and a change asks again.
// The user's own hooks (~/.claude/settings.json, ~/.offshoot/settings.json)
// run without asking.

// Hooks returns the hooks a command runs (offshoot.Options.Hooks), nil
// when there are none: those of the settings files s (read by
// project.LoadSettings, as for the permissions), the user's, and the
// project's once approved. A project's hooks are approved when the user's
// configuration records them (unchanged) for this project; else approve
// (--approve-hooks) approves and records them; else, when Ask is set (chat
// on a terminal), the user is asked; else (a pipe never says yes) they do
// not run, with a warning that says how to approve them. The hooks that
// run are listed in HookLines, a line for each file, in the order they
// run.
func (e *Env) Hooks(s *projectfiles.Settings, approve bool) *hooks.Hooks {
	e.hookLines = nil
	if s == nil {
		return nil
	}
	var project []settingsHooks
	for _, path := range s.Files {
		if k, ok := s.ProjectHooks[path]; ok {
			project = append(project, settingsHooks{path: path, hooks: k})
		}
	}
	trusted := len(project) > 0 && e.projectHooksApproved(project, approve)
	for _, path := range s.Files {
		k, ok := s.UserHooks[path]
		if !ok && trusted {
			k, ok = s.ProjectHooks[path]
		}
		if ok {
			e.hookLines = append(e.hookLines, fmt.Sprintf("hooks from %s: %s", Printable(e.Show(path)), describeHooks(k.List)))
		}
	}
	return s.Hooks(trusted)
}

// HookLines says which hooks run, one line for each settings file, once
// Hooks ran.
func (e *Env) HookLines() []string { return e.hookLines }

// settingsHooks are the hooks of one settings file.
type settingsHooks struct {
	path  string
	hooks hooks.Hooks
}

// projectHooksApproved reports whether the project's hooks may run,
// asking or recording as Hooks says.
func (e *Env) projectHooksApproved(project []settingsHooks, approve bool) bool {
	hash, err := hooksHash(project)
	if err != nil {
		e.Warn("cannot fingerprint the project's hooks (%v); they do not run", err)
		return false
	}
	ok, err := e.approved(hookApprovalsKey, hash)
	if err != nil {
		e.Warn("%v", err)
	}
	var list []string
	for _, f := range project {
		list = append(list, fmt.Sprintf("%s: %s", Printable(e.Show(f.path)), describeHooks(f.hooks.List)))
	}
	switch {
	case ok:
		return true
	case approve || (e.Ask != nil && e.Ask(fmt.Sprintf("This project configures hooks, commands that run on this machine: %s. Run them, now and in later runs while they stay unchanged?", strings.Join(list, "; ")))):
		if err := e.recordApproval(hookApprovalsKey, hash); err != nil {
			e.Warn("the project's hooks are approved for this run, but the approval could not be recorded: %v", err)
		}
		return true
	case e.Ask != nil:
		e.Warn("the project's hooks do not run: they were not approved")
	default:
		e.Warn("this project configures hooks, commands that run on this machine, which offshoot has not been allowed to run (%s); "+
			"they do not run. Read them, then approve them for this project with --approve-hooks (recorded in %s; a change to them asks again), or start 'offshoot chat', which asks",
			strings.Join(list, "; "), e.Show(e.UserConfigFile()))
	}
	return false
}

// hooksHash fingerprints a project's hooks as they would run: a change of
// a command, a matcher, a timeout, an event or a variable changes it.
func hooksHash(files []settingsHooks) (string, error) {
	type hook struct {
		Event, Matcher, Command string
		Timeout                 int64
	}
	type file struct {
		Path  string
		Hooks []hook
		Env   map[string]string
	}
	var all []file
	for _, f := range files {
		ff := file{Path: filepath.Base(filepath.Dir(f.path)) + "/" + filepath.Base(f.path), Env: f.hooks.Env}
		for _, k := range f.hooks.List {
			ff.Hooks = append(ff.Hooks, hook{string(k.Event), k.Matcher, k.Command, int64(k.Timeout)})
		}
		all = append(all, ff)
	}
	data, err := json.Marshal(all)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// describeHooks names each hook with its event, matcher and command.
func describeHooks(list []hooks.Hook) string {
	parts := make([]string, 0, len(list))
	for _, k := range list {
		ev := string(k.Event)
		if k.Matcher != "" {
			ev += "(" + k.Matcher + ")"
		}
		parts = append(parts, Printable(truncateRunes(ev+" "+k.Command, 120)))
	}
	return strings.Join(parts, ", ")
}
