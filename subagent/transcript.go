package subagent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
)

// recorder writes one child's transcript. The child's conversation
// reaches it as the runner's ConversationMessage events, observed on the
// bus; the observer only queues them, and a goroutine of the recorder's
// writes them, so that a slow disk never holds the child up. finish
// writes the end and waits for the queue to drain.
type recorder struct {
	e       *Engine
	base    string // the files' path without extension
	output  bool   // keep an output file (background tasks)
	childID string
	meta    TranscriptMeta // as the run started
	unsub   func()

	mu    sync.Mutex
	skipN int
	// keepSystem keeps the next system message: the task prompt of a
	// child whose task is in its prompt.
	keepSystem bool
	jobs       []func()
	closed     bool
	wake       chan struct{}
	done       chan struct{}

	f *os.File // the writer goroutine's
}

// record starts the child's transcript, or returns nil when the engine
// keeps none.
func (e *Engine) record(c *child, now time.Time) *recorder {
	if e.transcripts == "" {
		return nil
	}
	r := &recorder{
		e: e, base: agentBase(e.transcripts, c.root, c.id), output: c.background, childID: c.session.ID(),
		wake: make(chan struct{}, 1), done: make(chan struct{}),
		meta: TranscriptMeta{
			AgentID: c.id, Type: c.spec.Name, Description: c.spec.Description, Model: c.spec.Request.ModelName,
			Mode: c.mode().String(), ForkedContext: c.forkedContext(), Depth: c.depth, ParentSessionID: c.spec.Parent.ID(), RootSessionID: c.root,
			Background: c.background, Status: TaskStatusRunning, StartedAt: now, UpdatedAt: now,
		},
	}
	owner := thisProcess()
	r.meta.Owner = &owner
	if c.prior != nil {
		r.meta.StartedAt, r.meta.Usage, r.meta.Runs = c.prior.StartedAt, c.prior.Usage, c.prior.Runs
	}
	r.meta.Runs++
	meta, tail := r.meta, c.tail
	r.push(func() {
		r.open(tail)
		r.writeMeta(meta)
		if r.output {
			r.writeFile(r.base+extOutput, nil)
		}
	})
	unsub, err := bus.Subscribe(c.session.Bus(), "subagent.transcript", r.observe)
	if err != nil {
		e.log().Warn("subagent: the transcript will miss the conversation", "agent_id", c.id, "error", err)
	} else {
		r.unsub = unsub
	}
	go r.loop()
	return r
}

// path returns the transcript's path, "" for a nil recorder.
func (r *recorder) path() string {
	if r == nil {
		return ""
	}
	return r.base + extTranscript
}

// outputPath returns the output file's path, "" when there is none.
func (r *recorder) outputPath() string {
	if r == nil || !r.output {
		return ""
	}
	return r.base + extOutput
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

// observe queues a message of the child's conversation. It runs on the
// child's goroutine, inside its dispatch, so it only queues.
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
	msg := m.Message
	r.pushLocked(func() {
		r.appendLine(msg)
		if r.output && msg.Role == model.RoleAssistant && msg.Content != "" {
			r.writeFile(r.base+extOutput, []byte(msg.Content))
		}
	})
	return nil
}

// finish records how the run ended and waits until everything is written.
func (r *recorder) finish(c *child, out *Outcome, status TaskStatus, err error, now time.Time) {
	if r == nil {
		return
	}
	if r.unsub != nil {
		r.unsub()
	}
	meta := r.meta
	meta.Status, meta.UpdatedAt, meta.FinishedAt = status, now, now
	if err != nil {
		meta.Error = err.Error()
	}
	var text string
	var dur time.Duration
	if out != nil {
		meta.Usage = meta.Usage.plus(out.Usage)
		text, dur = out.Text, out.Duration
	}
	var final []byte
	if r.output {
		final = []byte(outputText(text, status, meta.Error, out, dur))
	}
	r.mu.Lock()
	r.pushLocked(func() {
		r.writeMeta(meta)
		if r.output {
			r.writeFile(r.base+extOutput, final)
		}
	})
	r.closed = true
	r.mu.Unlock()
	<-r.done
}

func (r *recorder) push(job func()) {
	r.mu.Lock()
	r.pushLocked(job)
	r.mu.Unlock()
}

func (r *recorder) pushLocked(job func()) {
	r.jobs = append(r.jobs, job)
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// loop runs the queued writes until the recorder is finished and its
// queue is empty.
func (r *recorder) loop() {
	defer close(r.done)
	for {
		r.mu.Lock()
		jobs, closed := r.jobs, r.closed
		r.jobs = nil
		r.mu.Unlock()
		for _, job := range jobs {
			job()
		}
		if len(jobs) > 0 {
			continue
		}
		if closed {
			if r.f != nil {
				if err := r.f.Close(); err != nil {
					r.warn("close", err)
				}
			}
			return
		}
		<-r.wake
	}
}

// open opens the transcript for appending; for a resumed agent, a torn
// last line is cut off (or a complete one given its newline) first.
func (r *recorder) open(tail transcriptTail) {
	if err := os.MkdirAll(filepath.Dir(r.base), 0o700); err != nil {
		r.warn("create the folder of", err)
		return
	}
	f, err := regfile.OpenFile(r.base+extTranscript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600) // never a FIFO or a device
	if err != nil {
		r.warn("open", err)
		return
	}
	if tail.set {
		if err := f.Truncate(tail.keep); err != nil {
			r.warn("repair", err)
		} else if tail.newline {
			_, err = f.Write([]byte{'\n'})
			if err != nil {
				r.warn("repair", err)
			}
		}
	}
	r.f = f
}

// appendLine writes one message as a line; after a failed write the
// transcript stops, and the run goes on.
func (r *recorder) appendLine(m model.Message) {
	if r.f == nil {
		return
	}
	line, err := json.Marshal(m)
	if err == nil {
		_, err = r.f.Write(append(line, '\n'))
	}
	if err != nil {
		r.warn("write", err)
		_ = r.f.Close()
		r.f = nil
	}
}

func (r *recorder) writeMeta(m TranscriptMeta) {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		r.warn("encode the record of", err)
		return
	}
	r.writeFile(r.base+extMeta, append(data, '\n'))
}

// writeFile replaces the file at path with data, atomically: a reader
// sees the old content or the new, never a mix.
func (r *recorder) writeFile(path string, data []byte) {
	err := func() error {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
		if err != nil {
			return err
		}
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
		return err
	}()
	if err != nil {
		r.warn("write", err)
	}
}

func (r *recorder) warn(what string, err error) {
	r.e.log().Warn("subagent: could not "+what+" a transcript file; the run goes on", "path", r.base, "error", err)
}
