//go:build linux

package chatcmd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/term"

	"github.com/offshoot-dev/offshoot/model/scripted"
)

// openPTY returns the two ends of a new pseudo-terminal: the one a
// person's keyboard and screen are (ctrl) and the one a program reads and
// writes as its terminal (tty).
func openPTY(t *testing.T) (ctrl, tty *os.File) {
	t.Helper()
	ctrl, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip("no pseudo-terminal to test with:", err)
	}
	t.Cleanup(func() { ctrl.Close() })
	var unlock, n uint32
	require.NoError(t, ioctl(ctrl, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)))
	require.NoError(t, ioctl(ctrl, syscall.TIOCGPTN, unsafe.Pointer(&n)))
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close() })
	return ctrl, tty
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// screen collects what a program writes to its terminal.
type screen struct {
	mu   sync.Mutex
	text strings.Builder
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text.String()
}

// waitFor waits until the screen shows text n times.
func (s *screen) waitFor(t *testing.T, text string, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Count(s.String(), text) >= n }, 10*time.Second, 5*time.Millisecond,
		"the screen never showed %q %d times:\n%s", text, n, s.String())
}

// On a terminal, lines are edited as they are typed, with a history, and
// Ctrl-C at the prompt ends the chat, leaving the terminal as it was.
func TestChatOnATerminal(t *testing.T) {
	ctrl, tty := openPTY(t)
	before, err := term.GetState(int(tty.Fd()))
	require.NoError(t, err)
	var s screen
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := ctrl.Read(buf)
			s.mu.Lock()
			s.text.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()

	f := newFixture(t, nil)
	m := scripted.New(scripted.When(scripted.LastUserContains("axb"), scripted.Repeat(scripted.Text("Got axb."))))
	done := make(chan error, 1)
	go func() {
		f.env.Stdin, f.env.Stdout = tty, tty
		done <- f.chat(t, context.Background(), tty, m, &chat{noColor: true})
	}()

	s.waitFor(t, prompt, 1)
	_, err = ctrl.Write([]byte("ab\x1b[Dx\r")) // a, b, left arrow, x: "axb"
	require.NoError(t, err)
	s.waitFor(t, "Got axb.", 1)
	s.waitFor(t, prompt, 2)
	_, err = ctrl.Write([]byte("\x1b[A\r")) // up arrow: the line before
	require.NoError(t, err)
	s.waitFor(t, "Got axb.", 2)
	s.waitFor(t, prompt, 3)
	_, err = ctrl.Write([]byte("half-typed\x03")) // Ctrl-C at the prompt, a line half typed
	require.NoError(t, err)

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-C at the prompt did not end the chat")
	}
	require.Len(t, m.Calls(), 2)
	assert.Equal(t, "axb", m.Calls()[1].Request.Messages[len(m.Calls()[1].Request.Messages)-1].Content)
	after, err := term.GetState(int(tty.Fd()))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the terminal is as it was")
	tty.Close()
	ctrl.Close()
	<-copied
	screen := s.String()
	assert.True(t, strings.HasSuffix(screen, "\n"), "the shell's prompt starts a line of its own, not after the half-typed line:\n%q", screen)
}
