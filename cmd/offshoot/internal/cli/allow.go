package cli

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/webfetch"
)

// Tools a user allows with --allow, which the agents do not get otherwise.
const (
	// allowBash gives the agents the bash tool: commands on a copy of
	// their files, inside bubblewrap.
	allowBash = "bash"
	// allowBashUnconfined gives it where bubblewrap cannot run, the
	// commands running with the user's permissions.
	allowBashUnconfined = "bash=unconfined"
	// allowWebFetch gives the agents the web_fetch tool: pages of the
	// public internet, as Markdown.
	allowWebFetch = "webfetch"
)

// allowUsage is the help of --allow.
const allowUsage = "give the agents a tool they do not get otherwise: bash (shell commands on a copy of their files, inside bubblewrap; chat asks before each command), bash=unconfined where bubblewrap is not installed, or webfetch (web pages of the public internet, read for the agents by the light model); repeat the flag or separate with commas for several"

// allowed is what --allow allows.
type allowed struct {
	bash, unconfined, webFetch bool
}

// parseAllow reads the values of --allow.
func parseAllow(values []string) (allowed, error) {
	var a allowed
	for _, v := range values {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case allowBash:
			a.bash = true
		case allowBashUnconfined:
			a.bash, a.unconfined = true, true
		case allowWebFetch:
			a.webFetch = true
		default:
			return allowed{}, Usagef("--allow %s: no tool is allowed so; give bash, bash=unconfined to run commands without a sandbox, or webfetch to fetch web pages", Printable(v))
		}
	}
	return a, nil
}

// bashTool returns the bash tool --allow asks for, or nil when it asks
// for none. Where the commands would run unconfined (no usable
// bubblewrap) it needs bash=unconfined, unless the user is asked before
// each command (ask). Close it with closeBash.
func (e *Env) bashTool(values []string, ask bool) (*shell.Tool, error) {
	a, err := parseAllow(values)
	if err != nil || !a.bash {
		return nil, err
	}
	tool, err := shell.New(shell.Options{})
	if err != nil {
		return nil, Usagef("--allow bash: %v", err)
	}
	if err := checkConfinement(tool.Confined(), a, ask); err != nil {
		_ = tool.Close()
		return nil, err
	}
	if !tool.Confined() {
		e.Warn("%s", unconfinedNotice)
	}
	return tool, nil
}

// webFetchTool returns the web_fetch tool --allow asks for, or nil when
// it asks for none. The light model of router reads the pages for the
// agents, as Claude Code's small model does (the main one when no light
// one is configured).
func webFetchTool(values []string, router *model.Router) (tools.Tool, error) {
	a, err := parseAllow(values)
	if err != nil || !a.webFetch {
		return nil, err
	}
	var reader model.Model
	if router != nil {
		if reader, err = router.Resolve(model.Light, nil); err != nil {
			reader = router.Main()
		}
	}
	tool, err := webfetch.New(webfetch.Options{Model: reader})
	if err != nil {
		return nil, Failf("--allow webfetch: %v; this is a bug, please report it", err)
	}
	return tool, nil
}

// unconfinedNotice is said once, when a command starts with the bash tool
// but without bubblewrap.
const unconfinedNotice = "bubblewrap (bwrap) is not installed here, or cannot make namespaces: the agents' bash commands run unconfined, as you. " +
	"They can read and change anything you can — your files, your keys, offshoot's environment (the model keys in it, through /proc) — and reach the network. " +
	"Install bubblewrap to confine them (Debian and Ubuntu: apt install bubblewrap)."

// checkConfinement refuses commands that would run unconfined unless the
// user allowed that (bash=unconfined) or is asked before each (ask).
func checkConfinement(confined bool, a allowed, ask bool) error {
	if confined || a.unconfined || ask {
		return nil
	}
	return Usagef("--allow bash: bubblewrap (bwrap) is not installed here, or cannot make namespaces, so the commands would run unconfined, " +
		"with your permissions on this machine; install bubblewrap (Debian and Ubuntu: apt install bubblewrap), or allow that with --allow bash=unconfined")
}

// maxShownCommand is the most characters of a command an approval
// question shows.
const maxShownCommand = 2000

// bashQuestion shows the command the agent wants to run, and where.
func bashQuestion(command string, confined bool) string {
	where := "in a sandbox, on a copy of the files"
	if !confined {
		where = "UNCONFINED, as you (bubblewrap is not installed here): it starts in a copy of the files, but can read and change anything you can, your keys and offshoot's environment included, and reach the network"
	}
	return fmt.Sprintf("The agent wants to run a command %s:\n  $ %s", where, Printable(truncateRunes(command, maxShownCommand)))
}
