package chatcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// maxLine bounds a line of input, so that input without line breaks
// cannot take unbounded memory.
const maxLine = 1 << 20

// prompt is what the terminal shows before each line.
const prompt = "> "

// input reads the user's lines: with line editing and history on a
// terminal (golang.org/x/term), plainly otherwise. Its writer is where
// everything the chat prints goes: on a terminal, through the line
// editor, which moves a prompt being typed out of the way and draws it
// again below.
type input interface {
	// ReadLine returns the next line without its line break; io.EOF at
	// the end of the input, or when the user presses Ctrl-D or Ctrl-C at
	// the prompt; ctx's error when ctx ends first.
	ReadLine(ctx context.Context) (string, error)
	// Echoes reports whether the lines read should be printed back: they
	// are not on the screen already.
	Echoes() bool
	io.Writer
	// Close ends the reading.
	Close()
}

// newInput returns the terminal input when standard input and output are
// both a terminal, the plain one otherwise.
func newInput(env *cli.Env) input {
	in, inOK := env.Stdin.(*os.File)
	out, outOK := env.Stdout.(*os.File)
	if inOK && outOK && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd())) {
		t := term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{in, out}, prompt)
		if w, h, err := term.GetSize(int(out.Fd())); err == nil && w > 0 && h > 0 {
			_ = t.SetSize(w, h)
		}
		return &terminalInput{fd: int(in.Fd()), out: out, t: t}
	}
	return newPlainInput(env.Stdin, env.Out())
}

// line is a line read, or why there is none.
type line struct {
	text string
	err  error
}

// plainInput reads lines from a reader that is no terminal, such as a
// pipe or a file: one goroutine reads ahead, a line at a time.
type plainInput struct {
	io.Writer
	lines chan line
	done  chan struct{}
	once  sync.Once
}

func newPlainInput(r io.Reader, w io.Writer) *plainInput {
	p := &plainInput{Writer: w, lines: make(chan line), done: make(chan struct{})}
	go p.read(r)
	return p
}

func (p *plainInput) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		if !p.send(line{text: strings.TrimSuffix(sc.Text(), "\r")}) {
			return
		}
	}
	err := sc.Err()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		err = fmt.Errorf("a line of the input is longer than %d bytes; send shorter lines", maxLine)
	case err == nil:
		err = io.EOF
	}
	p.send(line{err: err})
}

// send hands l to ReadLine; false once the input is closed.
func (p *plainInput) send(l line) bool {
	select {
	case p.lines <- l:
		return true
	case <-p.done:
		return false
	}
}

func (p *plainInput) ReadLine(ctx context.Context) (string, error) {
	select {
	case l, ok := <-p.lines:
		if !ok {
			return "", io.EOF
		}
		if l.err != nil {
			close(p.lines) // the reader has ended: later reads see the end too
		}
		return l.text, l.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-p.done:
		return "", io.EOF
	}
}

func (p *plainInput) Echoes() bool { return true }

func (p *plainInput) Close() { p.once.Do(func() { close(p.done) }) }

// terminalInput reads lines on a terminal with x/term's line editor: the
// terminal is in raw mode while a line is typed, and as it was otherwise,
// so that Ctrl-C during a turn is a signal again.
type terminalInput struct {
	fd  int
	out *os.File
	t   *term.Terminal

	mu      sync.Mutex
	pending chan line // the read still waiting for a key, after ctx ended
}

func (ti *terminalInput) ReadLine(ctx context.Context) (string, error) {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	state, err := term.MakeRaw(ti.fd)
	if err != nil {
		return "", fmt.Errorf("cannot read from the terminal: %w", err)
	}
	defer term.Restore(ti.fd, state)
	ch := ti.pending
	if ch == nil {
		ch = make(chan line, 1)
		go func() {
			s, err := ti.t.ReadLine()
			ch <- line{text: s, err: err}
		}()
	}
	select {
	case l := <-ch:
		ti.pending = nil
		if errors.Is(l.err, term.ErrPasteIndicator) {
			l.err = nil // a pasted line is a line
		}
		if l.err != nil {
			// Ctrl-C or Ctrl-D left the cursor after the prompt and what
			// was typed: what follows, the shell's prompt too, starts a
			// line of its own.
			_, _ = ti.out.WriteString("\r\n")
		}
		return l.text, l.err
	case <-ctx.Done():
		ti.pending = ch
		return "", ctx.Err()
	}
}

func (ti *terminalInput) Write(p []byte) (int, error) { return ti.t.Write(p) }

func (ti *terminalInput) Echoes() bool { return false }

func (ti *terminalInput) Close() {}
