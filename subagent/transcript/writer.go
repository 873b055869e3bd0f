package transcript

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/model"
)

// Writer writes one agent's files as the agent goes. Its methods only
// queue their write, and a goroutine of the Writer's does it, so that a
// slow disk never holds the agent up; Close waits until everything is
// written. A write that fails is logged, never returned: the agent's run
// goes on, and after a failed line the transcript stops. A Writer is safe
// for concurrent use.
type Writer struct {
	base   string // the files' path without extension
	output bool   // keep an output file
	log    *slog.Logger

	mu     sync.Mutex
	jobs   []func()
	closed bool
	wake   chan struct{}
	done   chan struct{}

	f *os.File // the writer goroutine's
}

// Create starts writing the files of agent m.AgentID in the delegation
// tree whose root session is m.RootSessionID: it opens the transcript for
// appending, writes m as the agent's record and, when m.Background is
// set, an empty output file. prior, when not nil, is the agent's
// transcript as read (Load) to go on with its conversation: a torn last
// line it ended in is cut off first. Failures are logged to log
// (slog.Default() when nil).
func (d Dir) Create(m Meta, prior *Transcript, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.Default()
	}
	w := &Writer{
		base: d.base(m.RootSessionID, m.AgentID), output: m.Background, log: log,
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
	var t tail
	if prior != nil {
		t = prior.tail
	}
	w.push(func() { w.open(t) })
	w.WriteMeta(m)
	if w.output {
		w.WriteOutput("")
	}
	go w.loop()
	return w
}

// Append queues a message of the conversation, written as one line.
func (w *Writer) Append(msg model.Message) {
	w.push(func() { w.appendLine(msg) })
}

// WriteMeta queues m as the agent's record, which it replaces whole, with
// Owner set to this process.
func (w *Writer) WriteMeta(m Meta) {
	owner := thisProcess()
	m.Owner = &owner
	w.push(func() {
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			w.warn("encode the record of", err)
			return
		}
		w.writeFile(w.base+extMeta, append(data, '\n'))
	})
}

// WriteOutput queues text as the agent's output, which it replaces
// whole; it does nothing for an agent that is not in the background.
func (w *Writer) WriteOutput(text string) {
	if !w.output {
		return
	}
	w.push(func() { w.writeFile(w.base+extOutput, []byte(text)) })
}

// Close waits until everything queued is written, and closes the
// transcript. Whatever is queued after it is left out.
func (w *Writer) Close() {
	w.mu.Lock()
	w.closed = true
	w.signal()
	w.mu.Unlock()
	<-w.done
}

func (w *Writer) push(job func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.jobs = append(w.jobs, job)
	w.signal()
}

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// loop runs the queued writes until the Writer is closed and its queue
// is empty.
func (w *Writer) loop() {
	defer close(w.done)
	for {
		w.mu.Lock()
		jobs, closed := w.jobs, w.closed
		w.jobs = nil
		w.mu.Unlock()
		for _, job := range jobs {
			job()
		}
		if len(jobs) > 0 {
			continue
		}
		if closed {
			if w.f != nil {
				if err := w.f.Close(); err != nil {
					w.warn("close", err)
				}
			}
			return
		}
		<-w.wake
	}
}

// open opens the transcript for appending; for an agent that goes on, a
// torn last line is cut off (or a complete one given its newline) first.
func (w *Writer) open(t tail) {
	if err := os.MkdirAll(filepath.Dir(w.base), 0o700); err != nil {
		w.warn("create the folder of", err)
		return
	}
	f, err := regfile.OpenFile(w.base+extTranscript, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600) // never a FIFO or a device
	if err != nil {
		w.warn("open", err)
		return
	}
	if t.set {
		if err := f.Truncate(t.keep); err != nil {
			w.warn("repair", err)
		} else if t.newline {
			_, err = f.Write([]byte{'\n'})
			if err != nil {
				w.warn("repair", err)
			}
		}
	}
	w.f = f
}

// appendLine writes one message as a line; after a failed write the
// transcript stops.
func (w *Writer) appendLine(m model.Message) {
	if w.f == nil {
		return
	}
	line, err := json.Marshal(m)
	if err == nil {
		_, err = w.f.Write(append(line, '\n'))
	}
	if err != nil {
		w.warn("write", err)
		_ = w.f.Close()
		w.f = nil
	}
}

// writeFile replaces the file at path with data, atomically: a reader
// sees the old content or the new, never a mix.
func (w *Writer) writeFile(path string, data []byte) {
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
		w.warn("write", err)
	}
}

func (w *Writer) warn(what string, err error) {
	w.log.Warn("subagent: could not "+what+" a transcript file; the run goes on", "path", w.base, "error", err)
}
