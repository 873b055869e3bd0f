package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/store"
)

// uiWatchdog bounds the waits of the ui tests: generous, never a timing bet.
const uiWatchdog = 2 * time.Minute

// lineWriter sends each line written to it that starts with prefix.
type lineWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	prefix string
	lines  chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for line := range strings.Lines(w.buf.String()) {
		if strings.HasPrefix(line, w.prefix) && strings.HasSuffix(line, "\n") {
			w.lines <- strings.TrimSpace(line)
		}
	}
	if i := strings.LastIndexByte(w.buf.String(), '\n'); i >= 0 {
		w.buf.Next(i + 1)
	}
	return len(p), nil
}

// ui serves the stored sessions until its context ends, at the URL it
// prints.
func TestUIServesTheStore(t *testing.T) {
	serveUI(t, "127.0.0.1:0", "")
}

// On an address other machines may reach, ui says so.
func TestUIWarnsOffLoopback(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() && !ip.IP.IsLinkLocalUnicast() {
			serveUI(t, net.JoinHostPort(ip.IP.String(), "0"), "an address other machines may reach")
			return
		}
	}
	t.Skip("this machine has no IPv4 address but loopback to listen on")
}

// serveUI runs ui on listen over a store of one session, opens its URL,
// stops it, and checks its standard error says warning (nothing when
// empty).
func serveUI(t *testing.T, listen, warning string) {
	ctx, cancel := context.WithTimeout(context.Background(), uiWatchdog)
	defer cancel()
	project := t.TempDir()
	env := &cli.Env{ProjectDir: project, Stdout: io.Discard, Stderr: io.Discard}
	st, err := env.OpenStore(ctx, cli.StoreFlags{}, false)
	require.NoError(t, err)
	require.NoError(t, st.Create(ctx, store.Header{ID: "chat-1", Tags: map[string]string{"offshoot.question": "What ships Friday?"}}))
	require.NoError(t, st.Close())

	out := &lineWriter{prefix: "http://", lines: make(chan string, 1)}
	var errOut bytes.Buffer
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- Run(serveCtx, &cli.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errOut, Getenv: func(string) string { return "" }},
			[]string{"--project", project, "--home", t.TempDir(), "ui", "--listen", listen})
	}()
	var url string
	select {
	case url = <-out.lines:
	case code := <-done:
		t.Fatalf("ui ended with %d before printing its URL: %s", code, errOut.String())
	}
	assert.Contains(t, url, "/?token=")
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(body), "What ships Friday?")
	client.CloseIdleConnections()

	stop()
	assert.Equal(t, cli.ExitOK, <-done)
	if warning == "" {
		assert.Empty(t, errOut.String(), "no warning on loopback")
	} else {
		assert.Contains(t, errOut.String(), warning)
	}
}

func TestUIRefuses(t *testing.T) {
	project := t.TempDir()
	tests := []struct {
		name string
		args []string
		says string
	}{
		{"no store yet", []string{"ui"}, "no sessions stored yet"},
		{"no store at all", []string{"ui", "--no-store"}, "ui reads a store"},
		{"every address", []string{"ui", "--store", "x.db", "--listen", "0.0.0.0:0"}, "give the address the browser will open"},
		{"every address, said short", []string{"ui", "--listen", ":0"}, "give the address the browser will open"},
		{"not an address", []string{"ui", "--store", "x.db", "--listen", "nowhere"}, "give a host and port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), uiWatchdog)
			defer cancel()
			code, _, stderr := run(t, ctx, project, map[string]string{"HOME": t.TempDir()}, tt.args...)
			assert.Equal(t, cli.ExitUsage, code, stderr)
			assert.Contains(t, stderr, tt.says)
		})
	}
}
