package subagent

import (
	"context"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// recorder keeps one child's transcript. The child's conversation reaches
// it as the runner's ConversationMessage events, observed on the bus; it
// picks the messages the transcript holds and hands them to a
// transcript.Writer, which writes them on a goroutine of its own, so that
// a slow disk never holds the child up. finish writes the end and waits
// for the writes to drain.
type recorder struct {
	w       *transcript.Writer
	path    string // the transcript's
	output  string // the output file's, "" when there is none
	childID string
	meta    transcript.Meta // as the run started
	unsub   func()

	mu    sync.Mutex
	skipN int
	// keepSystem keeps the next system message: the task prompt of a
	// child whose task is in its prompt.
	keepSystem bool
	closed     bool
}

// record starts the child's transcript, or returns nil when the engine
// keeps none.
func (e *Engine) record(c *child, now time.Time) *recorder {
	if e.transcripts == "" {
		return nil
	}
	r := &recorder{
		childID: c.session.ID(),
		meta: transcript.Meta{
			AgentID: c.id, Type: c.spec.Name, Description: c.spec.Description, Model: c.spec.Request.ModelName,
			Mode: c.mode().String(), ForkedContext: c.forkedContext(), Depth: c.depth, ParentSessionID: c.spec.Parent.ID(), RootSessionID: c.root,
			Background: c.background, Status: string(TaskStatusRunning), StartedAt: now, UpdatedAt: now,
		},
	}
	r.path, r.output = e.transcripts.Paths(c.root, c.id)
	if !c.background {
		r.output = ""
	}
	if c.prior != nil {
		r.meta.StartedAt, r.meta.Usage, r.meta.Runs = c.prior.Meta.StartedAt, c.prior.Meta.Usage, c.prior.Meta.Runs
	}
	r.meta.Runs++
	r.w = e.transcripts.Create(r.meta, c.prior, e.log())
	unsub, err := bus.Subscribe(c.session.Bus(), "subagent.transcript", r.observe)
	if err != nil {
		e.log().Warn("subagent: the transcript will miss the conversation", "agent_id", c.id, "error", err)
	} else {
		r.unsub = unsub
	}
	return r
}

// transcriptPath returns the transcript's path, "" for a nil recorder.
func (r *recorder) transcriptPath() string {
	if r == nil {
		return ""
	}
	return r.path
}

// start prepares for the messages an evaluation records at its start:
// the system message, kept when it is the task prompt of a new agent
// (keepSystem), then the conversation a resumed agent continues (resumed
// messages), which is on disk already and left out.
func (r *recorder) start(keepSystem bool, resumed int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.keepSystem = keepSystem && resumed == 0
	r.skipN = resumed
	if !r.keepSystem {
		r.skipN++
	}
	r.mu.Unlock()
}

// observe hands a message of the child's conversation to the writer. It
// runs on the child's goroutine, inside its dispatch; the writer only
// queues.
func (r *recorder) observe(_ context.Context, env bus.Envelope, m runner.ConversationMessage) error {
	if env.SessionID != r.childID {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if r.skipN > 0 {
		r.skipN--
		return nil
	}
	if m.Role == model.RoleSystem {
		if !r.keepSystem {
			return nil
		}
		r.keepSystem = false
	}
	r.w.Append(m.Message)
	if m.Role == model.RoleAssistant && m.Content != "" {
		r.w.WriteOutput(m.Content)
	}
	return nil
}

// finish records how the run ended and waits until everything is written.
func (r *recorder) finish(out *Outcome, status TaskStatus, err error, now time.Time) {
	if r == nil {
		return
	}
	if r.unsub != nil {
		r.unsub()
	}
	meta := r.meta
	meta.Status, meta.UpdatedAt, meta.FinishedAt = string(status), now, now
	if err != nil {
		meta.Error = err.Error()
	}
	var text string
	var dur time.Duration
	if out != nil {
		meta.Usage = Usage(meta.Usage).plus(out.Usage)
		text, dur = out.Text, out.Duration
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.w.WriteMeta(meta)
	if r.output != "" {
		r.w.WriteOutput(outputText(text, status, meta.Error, out, dur))
	}
	r.w.Close()
}

// plus returns u with o's spending added.
func (u Usage) plus(o Usage) Usage {
	out := Usage{Own: u.Own.Add(o.Own), Total: u.Total.Add(o.Total), ModelCalls: u.ModelCalls + o.ModelCalls}
	if len(u.ToolCalls)+len(o.ToolCalls) > 0 {
		out.ToolCalls = make(map[string]int, len(u.ToolCalls)+len(o.ToolCalls))
		for k, v := range u.ToolCalls {
			out.ToolCalls[k] += v
		}
		for k, v := range o.ToolCalls {
			out.ToolCalls[k] += v
		}
	}
	return out
}
