package project

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/permission"
)

// maxSettingsFile bounds one settings file, in bytes.
const maxSettingsFile = 1 << 20

// settingsFiles are the settings files of a folder (.claude, .offshoot)
// in Claude Code's order of precedence: the shared file, then the local
// one, which wins.
var settingsFiles = []string{"settings.json", "settings.local.json"}

// Settings are the permission settings and the hooks of a project and of
// its user, kept apart, for the project's may not widen anything nor run
// anything until the user approved them (see Permissions and Hooks).
// LoadSettings reads them, each file once.
type Settings struct {
	// User are the user's (~/.claude/settings.json, then
	// ~/.offshoot/settings.json), merged.
	User permission.Settings
	// Project are the project's (.claude/settings.json,
	// .offshoot/settings.json, .claude/settings.local.json,
	// .offshoot/settings.local.json), merged.
	Project permission.Settings
	// UserHooks and ProjectHooks are the hooks of each of the user's and
	// of the project's files that has any (hooks.ParseSettings: its
	// commands and its "env"), by the file's path in Files.
	UserHooks, ProjectHooks map[string]hooks.Hooks
	// Files are the files read, absolute, in their order of precedence:
	// the user's, then the project's shared ones, then its local ones,
	// .claude's before .offshoot's at each level.
	Files []string
	// Hash fingerprints the project's files as read (their names and
	// contents), "" when it has none: the user approves the project's
	// settings with it, and a change asks again.
	Hash string
	// Warnings are what could not be read, each naming its file.
	Warnings []string

	dir string // the project's directory, where hooks run
}

// LoadSettings reads the settings files of the project in o.Dir and of
// the user in o.HomeDir, each of .claude and .offshoot (whose settings win
// over .claude's on a clash), each file once, as Claude Code merges them:
// the rules of every file add up, so a deny rule from anywhere holds; the
// mode is the most specific file's (a local file's over a shared one's,
// the project's over the user's); the hooks of every file run, in that
// order. A file must be a regular file of at most 1 MiB inside its
// folder; one that is not, or is not JSON, is a warning and left out.
// When o.Dir is the home directory its files, the local ones included,
// are the user's.
func LoadSettings(o Options) *Settings {
	s := &Settings{dir: o.Dir}
	home := o.HomeDir != "" && o.Dir != "" && filepath.Clean(o.HomeDir) == filepath.Clean(o.Dir)
	if o.HomeDir != "" {
		names := settingsFiles[:1]
		if home {
			names = settingsFiles
		}
		for _, name := range names {
			for _, dir := range []string{".claude", ".offshoot"} {
				s.read(true, filepath.Join(o.HomeDir, dir), name, nil)
			}
		}
	}
	if o.Dir == "" || home {
		return s
	}
	h := sha256.New()
	read := false
	for _, name := range settingsFiles {
		for _, dir := range []string{".claude", ".offshoot"} {
			if s.read(false, filepath.Join(o.Dir, dir), name, h) {
				read = true
			}
		}
	}
	if read {
		s.Hash = hex.EncodeToString(h.Sum(nil))
	}
	return s
}

// read reads dir/name, the user's or the project's: it adds its rules and
// takes its mode, keeps its hooks, and adds its name and content to h when
// h is set; it reports whether the file was read.
func (s *Settings) read(user bool, dir, name string, h hash.Hash) bool {
	path := filepath.Join(dir, name)
	root, err := os.OpenRoot(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v", path, err))
		}
		return false
	}
	defer root.Close()
	data, err := regfile.ReadIn(root, name, maxSettingsFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false
	case err != nil:
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v; it is not read", path, err))
		return false
	}
	p, warnings, err := permission.ParseSettings(data)
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v; it is not read", path, err))
		return false
	}
	for _, w := range warnings {
		s.Warnings = append(s.Warnings, path+": "+w)
	}
	into, hooksOf := &s.Project, &s.ProjectHooks
	if user {
		into, hooksOf = &s.User, &s.UserHooks
	}
	into.Allow = append(into.Allow, p.Allow...)
	into.Deny = append(into.Deny, p.Deny...)
	into.Ask = append(into.Ask, p.Ask...)
	if mentionsMode(data) {
		into.DefaultMode = p.DefaultMode
	}
	k, warnings, err := hooks.ParseSettings(data)
	for _, w := range warnings {
		s.Warnings = append(s.Warnings, path+": "+w)
	}
	switch {
	case err != nil:
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v; its hooks do not run", path, err))
	case len(k.List) > 0:
		if *hooksOf == nil {
			*hooksOf = map[string]hooks.Hooks{}
		}
		(*hooksOf)[path] = k
	}
	if h != nil {
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Join(filepath.Base(dir), name), len(data))
		h.Write(data)
	}
	s.Files = append(s.Files, path)
	return true
}

// mentionsMode reports whether a settings file names a mode it may
// have, so that a file without one keeps the mode an earlier file set.
func mentionsMode(data []byte) bool {
	var f struct {
		Permissions struct {
			DefaultMode *string `json:"defaultMode"`
		} `json:"permissions"`
	}
	if json.Unmarshal(data, &f) != nil || f.Permissions.DefaultMode == nil {
		return false
	}
	switch permission.Mode(*f.Permissions.DefaultMode) {
	case permission.Default, permission.AcceptEdits, permission.Plan, permission.BypassPermissions, permission.DontAsk:
		return true
	}
	return false
}

// Permissions returns the settings in force: the deny and ask rules of
// every file, which only restrict; the user's allow rules and, once the
// user approved the project's settings (trusted), the project's; and the
// mode of the most specific file, where a project's mode that widens what
// runs (acceptEdits, bypassPermissions) needs the approval too.
func (s *Settings) Permissions(trusted bool) permission.Settings {
	out := permission.Settings{
		Deny:        append(append(permission.Rules{}, s.User.Deny...), s.Project.Deny...),
		Ask:         append(append(permission.Rules{}, s.User.Ask...), s.Project.Ask...),
		Allow:       append(permission.Rules{}, s.User.Allow...),
		DefaultMode: s.User.DefaultMode,
	}
	if trusted {
		out.Allow = append(out.Allow, s.Project.Allow...)
	}
	switch m := s.Project.DefaultMode; {
	case m == "":
	case trusted || m == permission.Default || m == permission.Plan || m == permission.DontAsk:
		out.DefaultMode = m
	}
	if out.DefaultMode == "" {
		out.DefaultMode = permission.Default
	}
	return out
}

// Hooks returns the hooks of the settings files, nil when they have none:
// the user's and, once the user approved the project's (trusted), the
// project's, every file's in the order of Files, all of which run; a
// variable that several files' "env" set has the last one's value. They
// run in the project's directory (Dir).
func (s *Settings) Hooks(trusted bool) *hooks.Hooks {
	all := &hooks.Hooks{Dir: s.dir}
	for _, path := range s.Files {
		k, ok := s.UserHooks[path]
		if !ok && trusted {
			k, ok = s.ProjectHooks[path]
		}
		if !ok {
			continue
		}
		all.List = append(all.List, k.List...)
		if len(k.Env) > 0 && all.Env == nil {
			all.Env = map[string]string{}
		}
		maps.Copy(all.Env, k.Env)
	}
	if len(all.List) == 0 {
		return nil
	}
	return all
}
