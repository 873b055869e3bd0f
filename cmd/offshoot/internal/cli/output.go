package cli

import (
	"io"
	"sync"
)

// Out returns standard output as a writer that is safe for concurrent
// use, for commands whose agents print from several goroutines. Every
// write through it is whole: two never mix.
func (e *Env) Out() io.Writer {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.out == nil {
		e.out = &lockedWriter{w: e.Stdout}
	}
	return e.out
}

// Err returns standard error as Out returns standard output. Warnings
// (Warn, Logger) are written through it.
func (e *Env) Err() io.Writer {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = &lockedWriter{w: e.Stderr}
	}
	return e.err
}

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
