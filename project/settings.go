package project

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/permission"
)

// maxSettingsFile bounds one settings file, in bytes.
const maxSettingsFile = 1 << 20

// settingsFiles are the settings files of a folder (.claude, .offshoot)
// in the order their modes override one another: the shared file, then
// the local one.
var settingsFiles = []string{"settings.json", "settings.local.json"}

// Settings are the permission settings of a project and its user, kept
// apart, for the project's may not widen anything until the user approved
// them (see Permissions). LoadSettings reads them.
type Settings struct {
	// User are the user's (~/.claude/settings.json, then
	// ~/.offshoot/settings.json), merged.
	User permission.Settings
	// Project are the project's (.claude/settings.json,
	// .offshoot/settings.json, .claude/settings.local.json,
	// .offshoot/settings.local.json), merged.
	Project permission.Settings
	// Files are the files read, absolute, the user's first.
	Files []string
	// Hash fingerprints the project's files as read (their names and
	// contents), "" when it has none: the user approves the project's
	// settings with it, and a change asks again. The files' hooks are
	// approved by the same hash.
	Hash string
	// Warnings are what could not be read, each naming its file.
	Warnings []string
}

// LoadSettings reads the settings files of the project in o.Dir and of
// the user in o.HomeDir, each of .claude and .offshoot (whose settings win
// over .claude's on a clash), as Claude Code merges them: the rules of
// every file add up, so a deny rule from anywhere holds; the mode is the
// most specific file's (a local file's over a shared one's, the project's
// over the user's). A file must be a regular file of at most 1 MiB inside
// its folder; one that is not, or is not JSON, is a warning and left out.
// When o.Dir is the home directory its files are the user's.
func LoadSettings(o Options) *Settings {
	s := &Settings{}
	home := o.HomeDir != "" && o.Dir != "" && filepath.Clean(o.HomeDir) == filepath.Clean(o.Dir)
	if o.HomeDir != "" {
		for _, dir := range []string{".claude", ".offshoot"} {
			s.read(&s.User, filepath.Join(o.HomeDir, dir), "settings.json", nil)
		}
	}
	if o.Dir == "" || home {
		return s
	}
	h := sha256.New()
	read := false
	for _, name := range settingsFiles {
		for _, dir := range []string{".claude", ".offshoot"} {
			if s.read(&s.Project, filepath.Join(o.Dir, dir), name, h) {
				read = true
			}
		}
	}
	if read {
		s.Hash = hex.EncodeToString(h.Sum(nil))
	}
	return s
}

// read reads dir/name into into, adding its rules and taking its mode,
// and its name and content to h when h is set; it reports whether the
// file was read.
func (s *Settings) read(into *permission.Settings, dir, name string, h hash.Hash) bool {
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
	into.Allow = append(into.Allow, p.Allow...)
	into.Deny = append(into.Deny, p.Deny...)
	into.Ask = append(into.Ask, p.Ask...)
	if mentionsMode(data) {
		into.DefaultMode = p.DefaultMode
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
