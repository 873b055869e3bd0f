package shell

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// params are the bash tool's arguments.
type params struct {
	// Command is the command line.
	Command string `json:"command" validate:"required,max=100000" jsonschema:"the command line, run with /bin/sh -c in a directory holding a copy of your files"`
	// Timeout is how long it may run, in milliseconds.
	Timeout int `json:"timeout,omitempty" validate:"gte=0" jsonschema:"how long the command may run, in milliseconds, at most 600000 (10 minutes); the default the tool's description gives when left out"`
	// Description says what it does, for the user.
	Description string `json:"description,omitempty" validate:"max=1000" jsonschema:"what the command does, in a few words, for the user"`
}

// result is what a call gives the program; the model reads it in words
// (the message).
type result struct {
	// ExitCode is the command's exit status; -1 when it was killed.
	ExitCode int `json:"exit_code"`
	// Output is its standard output and error, cut to 30,000 characters.
	Output string `json:"output"`
	// TimedOut is set when it ran out of time and was killed.
	TimedOut bool `json:"timed_out,omitempty"`
	// Changes are the files it created, edited or deleted, and those the
	// files did not take: the first maxChanges of them.
	Changes []change `json:"changes,omitempty"`
	// MoreChanges counts the changes left out of Changes.
	MoreChanges int `json:"more_changes,omitempty"`
}

// maxChanges bounds the changes a result value lists.
const maxChanges = 500

// describe is what the model is told of the tool.
func describe(confined, network bool, timeout time.Duration) string {
	where := "It runs unconfined, as the user: it can read and change anything the user can outside that directory (the user's keys and files, the environment of the program that runs it) and reach the network, so keep to the directory."
	if confined {
		where = "It runs in a sandbox that sees only that directory (writable), the system's programs (read-only) and a private /tmp, without network."
		if network {
			where = "It runs in a sandbox that sees only that directory (writable), the system's programs (read-only) and a private /tmp; it may use the network."
		}
	}
	return "Run a shell command with /bin/sh -c in a directory that holds a copy of your files: the files it creates, edits or deletes there become changes to your files. " +
		"It gets no input; what it prints (output and errors together) is cut to 30000 characters, keeping the start and the end. " +
		"It may run " + inWords(timeout) + " (timeout, in milliseconds: at most 600000); when time is up it is killed with everything it started. " +
		"Binary files and files over 48000 characters stay out of your files. " + where
}

// environment returns the commands' environment but HOME: PATH and LANG,
// then extra, checked.
func environment(extra []string) ([]string, error) {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	env := []string{"PATH=" + path, "LANG=" + lang}
	for _, kv := range extra {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.ContainsRune(kv, 0) {
			return nil, fmt.Errorf("shell: Options.Env entry %q is not NAME=value; give each variable as NAME=value", kv)
		}
		if name == "HOME" {
			return nil, fmt.Errorf("shell: Options.Env sets HOME, which is the scratch directory; leave it out")
		}
		env = append(env, kv)
	}
	return env, nil
}

// filesState is the VFS's files as delegation sees them (a tools.State):
// the bash tool changes them as the file tools do, so it declares the
// same state, which it takes from one of them.
func filesState() tools.State {
	set, err := vfs.Tools(vfs.Options{})
	if err != nil {
		return nil
	}
	ls, ok := set.Lookup("ls")
	if !ok {
		return nil
	}
	return ls.Spec().State
}

// call runs one command for the model.
func (t *Tool) call(ctx context.Context, inv *tools.Invocation, p params) (tools.Result[result], error) {
	if inv.Session == nil {
		return tools.Result[result]{}, fmt.Errorf("the call has no session; the bash tool runs commands on the files of the session in its invocation")
	}
	if !inv.Session.Installed(t.vfsKey) {
		return tools.Result[result]{}, fmt.Errorf("the file reducers are not installed on session %s; install the tool on the session (tools.Toolset.Install) before calling it", inv.Session.ID())
	}
	if strings.ContainsRune(p.Command, 0) {
		return tools.Result[result]{}, &tools.ValidationError{Err: fmt.Errorf("command: it contains a NUL byte, which a command line cannot hold")}
	}
	timeout, cut := t.timeout, false
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Millisecond
		if timeout > maxTimeout {
			timeout, cut = maxTimeout, true
		}
	}
	sl, err := t.acquire(inv.Session.ID())
	if err != nil {
		return tools.Result[result]{}, err
	}
	defer t.release(sl)
	if err := ctx.Err(); err != nil {
		return tools.Result[result]{}, err
	}
	files := vfs.Files(inv.Session)
	if err := sl.s.sync(files); err != nil {
		// A command may have left the directory unusable: start it over.
		if rerr := sl.s.reset(); rerr != nil {
			return tools.Result[result]{}, fmt.Errorf("copying the files into the scratch directory: %w (and emptying it: %v)", err, rerr)
		}
		if err := sl.s.sync(files); err != nil {
			return tools.Result[result]{}, fmt.Errorf("copying the files into the scratch directory: %w", err)
		}
	}
	dir := sl.s.dir
	argv := []string{"/bin/sh", "-c", p.Command}
	if t.bwrap != "" {
		argv = bwrapArgs(t.bwrap, dir, p.Command, t.network)
	}
	env := append(append(make([]string, 0, len(t.env)+1), t.env...), "HOME="+dir)
	r, err := t.run(ctx, command{argv: argv, dir: dir, env: env, timeout: timeout})
	if err != nil {
		return tools.Result[result]{}, err
	}
	events, changes, err := sl.s.readBack(files)
	if err != nil {
		return tools.Result[result]{}, fmt.Errorf("reading back the scratch directory: %w", err)
	}
	res := result{ExitCode: r.exitCode, Output: r.output, TimedOut: r.timedOut, Changes: changes[:min(len(changes), maxChanges)]}
	res.MoreChanges = len(changes) - len(res.Changes)
	return tools.OK(report(r, timeout, cut, changes), res).WithEvents(events...), nil
}

// report words what a command did for the model: how it ended, the files
// it changed, and its output.
func report(r ran, timeout time.Duration, cut bool, changes []change) string {
	var b strings.Builder
	switch {
	case r.timedOut:
		fmt.Fprintf(&b, "The command ran out of time after %s and was killed, with everything it started.", timeout)
	case r.cancelled:
		b.WriteString("The command was stopped (the call was cancelled) and killed, with everything it started.")
	case r.signal != "":
		fmt.Fprintf(&b, "The command was killed by the signal %s.", r.signal)
	default:
		fmt.Fprintf(&b, "Exit code %d.", r.exitCode)
	}
	if cut {
		fmt.Fprintf(&b, " (Its timeout was cut to %s, the most a command may run.)", maxTimeout)
	}
	var done, left []string
	for _, c := range changes {
		if c.Change == "not copied" {
			left = append(left, fmt.Sprintf("%s (%s)", c.Path, c.Reason))
		} else {
			done = append(done, c.Change+" "+c.Path)
		}
	}
	if len(done) == 0 {
		b.WriteString("\nFiles changed: none.")
	} else {
		fmt.Fprintf(&b, "\nFiles changed: %s.", listed(done, ", "))
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\nNot copied into your files: %s.", listed(left, "; "))
	}
	if r.output == "" {
		b.WriteString("\nOutput: none.")
	} else {
		b.WriteString("\nOutput:\n")
		b.WriteString(r.output)
	}
	return b.String()
}

// maxListed is the most files a report names in one list.
const maxListed = 50

// listed joins the first maxListed items with sep, and counts the rest.
func listed(items []string, sep string) string {
	if len(items) <= maxListed {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s%sand %d more", strings.Join(items[:maxListed], sep), sep, len(items)-maxListed)
}

// inWords says a duration as the model reads it: "2 minutes", "90 seconds".
func inWords(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d == time.Second:
		return "1 second"
	case d%time.Second == 0:
		return fmt.Sprintf("%d seconds", d/time.Second)
	}
	return fmt.Sprintf("%d milliseconds", d/time.Millisecond)
}
