package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Setup is what a program registers for its children: the same on its
// workers as where it dispatches them, since tools are code — a worker
// is built from the same program. The fields that say what a child may
// use (Prompts, Agents, Tools, Registry) make the program's fingerprint;
// a job from a program of another fingerprint is refused with a failed
// result naming both. Model and the worker settings are used by Serve
// only.
type Setup struct {
	// Prompts are the prompts children run (dispatch_subagent's registry):
	// a worker renders a child's prompt from here, for its own tools and
	// structured output.
	Prompts *prompt.Registry
	// Agents are the agent definitions of the Task tool, if the program
	// has one.
	Agents *agents.Registry
	// Tools are every tool a child may be given, looked up by name on a
	// worker: the toolsets of the prompts that delegate.
	Tools tools.Toolset
	// Registry names the session's types in snapshot JSON
	// (serde.DefaultRegistry when nil). The names of the tools' reducer
	// sets and the runner's are added to it.
	Registry *serde.Registry
	// Model returns the model a child runs on, by the name its parent
	// used ("main", "light", a configured name). Serve needs it.
	Model func(name string) (model.Model, error)
	// ChildSetup runs on each child session a worker restores, before it
	// runs — for derived reducers its tools read (as
	// subagent.Options.ChildSetup).
	ChildSetup func(child *session.Session) error
	// Concurrency is how many children a worker runs at once
	// (4 when 0).
	Concurrency int
	// AckWait is how long a job may go without a sign of life from its
	// worker before it is given to another (30 seconds when 0); a worker
	// signals every third of it while a child runs. MaxDeliver is how many
	// times a job is given to a worker before it fails (3 when 0). Both
	// are the pool's: the first program to create the pool sets them.
	AckWait    time.Duration
	MaxDeliver int
	// JobMaxAge is how long a job may wait in the queue before the server
	// drops it (12 hours when 0: half the snapshot bucket's TTL, so that
	// a queued job's snapshot is still there when a worker takes it). It
	// is the jobs stream's, shared by all pools: the first program to
	// create the stream sets it.
	JobMaxAge time.Duration
	// MaxSnapshotBytes bounds the snapshot a worker loads, and a batch
	// of a child's events too big for a message that the dispatching side
	// reads from the store (256 MiB when 0).
	MaxSnapshotBytes int64
	// Logger reports what does not stop a worker (slog.Default() when nil).
	Logger *slog.Logger
	// Stats, on a worker, when set, is where Serve counts what a program
	// may watch (the cancels it ignored).
	Stats *Stats
	// Bus, on a worker, is the bus the children's sessions publish on (a
	// new one for each child when nil): attach observers to it — a tracer
	// (telemetry.Observe) continues the trace a job's headers carry, as
	// the child runs with their context.
	Bus *bus.Bus
}

// Defaults of Setup.
const (
	defaultConcurrency = 4
	defaultAckWait     = 30 * time.Second
	defaultMaxDeliver  = 3
	defaultMaxSnapshot = 256 << 20
	defaultJobMaxAge   = 12 * time.Hour
)

func (s Setup) withDefaults() Setup {
	if s.Concurrency <= 0 {
		s.Concurrency = defaultConcurrency
	}
	if s.AckWait <= 0 {
		s.AckWait = defaultAckWait
	}
	if s.MaxDeliver <= 0 {
		s.MaxDeliver = defaultMaxDeliver
	}
	if s.JobMaxAge <= 0 {
		s.JobMaxAge = defaultJobMaxAge
	}
	if s.MaxSnapshotBytes <= 0 {
		s.MaxSnapshotBytes = defaultMaxSnapshot
	}
	if s.Registry == nil {
		s.Registry = serde.DefaultRegistry
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	return s
}

// sets are the reducer sets a child's session may need: the runner's and
// the tools'.
func (s Setup) sets() []session.Reducers {
	return append([]session.Reducers{runner.Reducers()}, s.Tools.Reducers()...)
}

// name gives the sets' types their names in the setup's registry.
func (s Setup) name() {
	for _, set := range s.sets() {
		_ = set.Name(s.Registry) // a name the program gave wins
	}
}

// fingerprint is a hash of what the setup registers: the snapshot schema
// version, the prompts (keys and descriptors, which hash their templates
// and tool contracts), the agents, the tools' contracts and the names of
// the reducer sets' types. Two builds of one program have the same; a
// build with another tool, prompt or event name has another.
func (s Setup) fingerprint() string {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	add("schema %s", session.SchemaVersion)
	if s.Prompts != nil {
		for p := range s.Prompts.All() {
			add("prompt %s/%s %s", p.NS(), p.Key(), promptHash(p))
		}
	}
	if s.Agents != nil {
		for _, d := range s.Agents.All() {
			add("agent %s %s", d.Name, agentHash(d))
		}
	}
	for t := range s.Tools.All() {
		add("tool %s %s", t.Spec().Name, toolHash(t))
	}
	for _, set := range s.sets() {
		for t, n := range set.Names {
			add("type %s %s", n, typeKey(t))
		}
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// typeKey names a Go type the same in every build of a program: its
// package path and name.
func typeKey(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}
