// Package cli holds what offshoot's commands share: the environment a
// command runs in (its project and home directories, standard streams and
// variables), exit codes, and the configuration every command reads the
// same way — models, agent definitions, MCP servers and the tools a main
// agent gets.
package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/permission"
	projectfiles "github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Env is the environment of one invocation of offshoot. The root command
// fills ProjectDir and HomeDir from --project and --home, then calls
// Resolve before any command runs.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads environment variables (os.Getenv in the program).
	Getenv func(string) string
	// ProjectDir is the project's directory: absolute once Resolve ran.
	ProjectDir string
	// HomeDir is the user's home directory: absolute once Resolve ran, or
	// empty when there is none (the user level is then skipped).
	HomeDir string
	// Ask, when set, asks the user a yes-or-no question (see
	// AskOnTerminal); nil where no one can answer.
	Ask func(question string) bool
	// Verbose is set by --verbose: a failure shows the whole error chain
	// after the sentence that explains it.
	Verbose bool
	// Copied is filled by NewClient: what it copied of the directory and
	// what it left out, and why.
	Copied vfs.MountReport
	// Memory is filled by NewClient: the project's memory files, read
	// from the directory the agents work in (see project.LoadMemory).
	Memory *projectfiles.Memory
	// Skills is filled by NewClient: the project's and the user's skills
	// (see project.LoadSkills).
	Skills *projectfiles.Skills
	// Commands is filled by NewClient: the project's and the user's slash
	// commands (see project.LoadCommands).
	Commands *projectfiles.Commands
	// Settings is filled by NewClient: the user's and the project's
	// settings files (see project.LoadSettings); SettingsTrusted reports
	// whether the project's took full effect (approved, or none).
	Settings        *projectfiles.Settings
	SettingsTrusted bool
	// Remembered is filled by NewClient: the rules the user allowed for
	// good at the terminal in this project ([a]lways), from the user's
	// configuration.
	Remembered permission.Rules
	// Stored is filled by NewClient: the store the session is kept in
	// (nil with --no-store); ResumedID the stored session it carries on
	// ("" for a new one). Close it with CloseStore.
	Stored    *Stored
	ResumedID string

	homeGiven bool
	started   bool
	owner     string      // the user's owner token (see Owner), once a store is open
	bash      *shell.Tool // the bash tool of --allow bash, closed by CloseStore
	remote    func()      // closes the workers' executor of --nats, by CloseStore
	hookLines []string    // the hooks that run (see Hooks)

	mu          sync.Mutex
	onInterrupt func()        // see OnInterrupt
	out, err    *lockedWriter // see Out and Err
}

// SetHomeGiven records that HomeDir came from the --home flag, so Resolve
// checks it exists.
func (e *Env) SetHomeGiven() { e.homeGiven = true }

// Resolve makes the directories absolute and checks them: ProjectDir
// defaults to the working directory and must be a directory; HomeDir
// defaults to $HOME and, when given with --home, must be a directory.
// From then on the command has started: errors are no longer usage errors
// by default (see Code).
func (e *Env) Resolve() error {
	e.started = true
	if e.ProjectDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Usagef("cannot read the working directory (%v); give the project with --project DIR", err)
		}
		e.ProjectDir = wd
	} else if err := isDir(e.ProjectDir); err != nil {
		return Usagef("--project %s: %v; give an existing project directory", e.ProjectDir, err)
	}
	abs, err := filepath.Abs(e.ProjectDir)
	if err != nil {
		return Usagef("--project %s: %v", e.ProjectDir, err)
	}
	e.ProjectDir = abs
	if e.HomeDir == "" && !e.homeGiven {
		e.HomeDir = e.Getenv("HOME")
	}
	if e.HomeDir == "" {
		return nil
	}
	if e.homeGiven {
		if err := isDir(e.HomeDir); err != nil {
			return Usagef("--home %s: %v; give an existing directory", e.HomeDir, err)
		}
	}
	if e.HomeDir, err = filepath.Abs(e.HomeDir); err != nil {
		return Usagef("--home %s: %v", e.HomeDir, err)
	}
	return nil
}

// Started reports whether Resolve ran: whether the command line was
// accepted.
func (e *Env) Started() bool { return e.started }

func isDir(p string) error {
	info, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("no such directory")
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("not a directory")
	}
	return nil
}

// Show returns p as a person reads it best: relative to the project
// directory when it lies inside it, with ~ for the home directory, and as
// it is otherwise.
func (e *Env) Show(p string) string {
	if p == "" {
		return p
	}
	if rel, ok := within(e.ProjectDir, p); ok {
		return rel
	}
	if rel, ok := within(e.HomeDir, p); ok {
		return filepath.Join("~", rel)
	}
	return p
}

func within(dir, p string) (string, bool) {
	if dir == "" || !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Warn writes a warning line to standard error.
func (e *Env) Warn(format string, args ...any) {
	fmt.Fprintf(e.Err(), "warning: "+format+"\n", args...)
}
