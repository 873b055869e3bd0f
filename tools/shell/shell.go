package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Limits on a command's time.
const (
	// defaultTimeout is how long a command may run when neither the model
	// nor Options say.
	defaultTimeout = 2 * time.Minute
	// maxTimeout is the longest a command may run; a longer timeout is
	// cut to it.
	maxTimeout = 10 * time.Minute
	// maxScratchDirs is how many sessions' scratch directories the tool
	// keeps: beyond, the one used least recently is removed (and made
	// again, whole, if its session runs another command).
	maxScratchDirs = 64
)

// Options configure the bash tool (New). The zero value runs commands for
// 2 minutes at most, with nothing but PATH, HOME and LANG in their
// environment, inside bubblewrap where it works.
type Options struct {
	// Env are more environment variables for the commands, as
	// "NAME=value". Commands get PATH and LANG (offshoot's, or
	// /usr/local/bin:/usr/bin:/bin and C.UTF-8), HOME (the scratch
	// directory) and these, which win; nothing else of offshoot's
	// environment is passed to them. Only confinement keeps the rest
	// out of reach: an unconfined command can read the program's
	// environment (model keys included) from /proc/<its pid>/environ,
	// and anything else the user can.
	Env []string
	// Timeout is how long a command may run when the model gives no
	// timeout: 2 minutes when zero, at most 10 minutes (the model's own
	// timeout is cut to 10 minutes too).
	Timeout time.Duration
	// Dir is the directory the scratch directories are made in: the
	// system's temporary directory when empty.
	Dir string
	// Unconfined runs the commands without bubblewrap even where it
	// works: as the user, able to read and change whatever the user can.
	// Without bubblewrap (bwrap) installed and usable, commands run so
	// anyway; Tool.Confined says which.
	Unconfined bool
	// Network lets confined commands reach the network; unconfined ones
	// always can.
	Network bool
}

// Tool is the bash tool: each call runs a command with /bin/sh -c in a
// scratch directory holding a copy of the calling session's files, and
// turns the files the command created, changed or deleted there into
// changes of that session's files (vfs.FileWritten and vfs.FileDeleted
// events). A forked session has a directory of its own, so two forks'
// commands never see each other's changes. It is safe for concurrent
// use; calls on one session wait for each other. Close it when done to
// remove the scratch directories.
type Tool struct {
	tool    tools.Tool
	env     []string
	timeout time.Duration
	bwrap   string // bubblewrap's path, "" when unconfined
	network bool
	parent  string
	vfsKey  string
	// run runs a command: execute, or a fake in tests.
	run    func(context.Context, command) (ran, error)
	mu     sync.Mutex
	root   string // made at the first call
	dirs   map[string]*slot
	tick   uint64
	closed bool
}

// slot is a session's scratch directory, locked while a command runs in
// it.
type slot struct {
	mu   sync.Mutex
	s    *scratch
	used uint64
	busy int // calls holding or waiting for mu
}

// New returns the bash tool, or why it cannot run commands here (it needs
// a Unix system with /bin/sh) or what in opts is wrong.
func New(opts Options) (*Tool, error) {
	if !supported {
		return nil, errors.New("shell: the bash tool needs a Unix system with /bin/sh")
	}
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("shell: Options.Timeout is %s; give a positive duration of at most %s, or 0 for %s", opts.Timeout, maxTimeout, defaultTimeout)
	}
	t := &Tool{timeout: defaultTimeout, network: opts.Network, parent: opts.Dir, dirs: map[string]*slot{}, run: execute}
	if opts.Timeout > 0 {
		t.timeout = min(opts.Timeout, maxTimeout)
	}
	env, err := environment(opts.Env)
	if err != nil {
		return nil, err
	}
	t.env = env
	if !opts.Unconfined {
		t.bwrap = findBwrap()
	}
	t.vfsKey = vfs.Reducers(vfs.Table{}).Key
	t.tool, err = tools.New("bash", describe(t.bwrap != "", t.network, t.timeout), t.call,
		tools.WithReducers(vfs.Reducers(vfs.Table{})), tools.WithState(filesState()), tools.ExcludeValue(),
		tools.WithExamples(tools.Example[params, result]{
			Description: "list the files",
			Input:       params{Command: "ls -la"},
			Output:      result{ExitCode: 0, Output: "total 0\n"},
		}))
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Spec describes the tool to the model (see tools.Tool).
func (t *Tool) Spec() tools.Spec { return t.tool.Spec() }

// Call runs one command (see tools.Tool); the model's arguments are a
// command, and optionally a timeout in milliseconds and a description.
func (t *Tool) Call(ctx context.Context, inv *tools.Invocation, args json.RawMessage) tools.Outcome {
	return t.tool.Call(ctx, inv, args)
}

// Confined reports whether the commands run inside bubblewrap: false when
// they run as the user, unconfined (Options.Unconfined, or no usable
// bwrap here).
func (t *Tool) Confined() bool { return t.bwrap != "" }

// Close removes the scratch directories, once the commands running in
// them have ended; later calls fail. It is safe to call more than once.
func (t *Tool) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	slots := make([]*slot, 0, len(t.dirs))
	for _, sl := range t.dirs {
		slots = append(slots, sl)
	}
	t.dirs = nil
	root := t.root
	t.mu.Unlock()
	for _, sl := range slots {
		sl.mu.Lock() // wait for its command
		sl.mu.Unlock()
	}
	if root == "" {
		return nil
	}
	return removeAll(root)
}

// acquire returns the locked scratch directory of session id, making it
// (and the tool's directory) when there is none; the caller releases it.
func (t *Tool) acquire(id string) (*slot, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, errors.New("the bash tool was closed; it runs no more commands")
	}
	if t.root == "" {
		root, err := os.MkdirTemp(t.parent, "offshoot-shell-")
		if err != nil {
			t.mu.Unlock()
			return nil, fmt.Errorf("making the scratch directories' directory: %w", err)
		}
		t.root = root
	}
	t.tick++
	sl, ok := t.dirs[id]
	if !ok {
		dir, err := os.MkdirTemp(t.root, "session-")
		if err != nil {
			t.mu.Unlock()
			return nil, fmt.Errorf("making the scratch directory: %w", err)
		}
		sl = &slot{s: newScratch(dir)}
		t.dirs[id] = sl
	}
	sl.used = t.tick
	sl.busy++
	t.evict()
	t.mu.Unlock()
	sl.mu.Lock()
	return sl, nil
}

// release unlocks sl.
func (t *Tool) release(sl *slot) {
	sl.mu.Unlock()
	t.mu.Lock()
	sl.busy--
	t.mu.Unlock()
}

// evict removes the scratch directories used least recently beyond
// maxScratchDirs, skipping those in use. t.mu is held.
func (t *Tool) evict() {
	for len(t.dirs) > maxScratchDirs {
		var oldID string
		var old *slot
		for id, sl := range t.dirs {
			if sl.busy == 0 && (old == nil || sl.used < old.used) {
				oldID, old = id, sl
			}
		}
		if old == nil {
			return
		}
		delete(t.dirs, oldID)
		_ = removeAll(old.s.dir)
	}
}
