package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools"
)

// FuzzWebFetchURL calls the tool with any url a model may send, with no
// network (every connection fails): a call never panics and never
// succeeds; a url accepted is http or https with a host and no
// credentials, and only public addresses are ever dialled.
func FuzzWebFetchURL(f *testing.F) {
	for _, seed := range []string{
		"https://go.dev/doc/", "http://127.0.0.1/", "http://[::1]:80/", "http://[::ffff:10.0.0.1]/",
		"http://0x7f.1/", "http://2130706433/", "http://localhost./", "HTTPS://EXAMPLE.COM/#frag",
		"https://user:pw@example.com/", "javascript:alert(1)", "file:///etc/passwd", "//example.com",
		"http://[fe80::1%25eth0]/", "http://example.com:99999/", "http://%41.com/", "http://a b/", "",
	} {
		f.Add(seed)
	}
	fe := newFetcher(Options{Timeout: 0}, func(context.Context, string) ([]netip.Addr, error) {
		return nil, errors.New("no names resolve in this test")
	})
	var dialled []string
	fe.client.Transport.(*http.Transport).DialContext = func(_ context.Context, _, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if a, err := netip.ParseAddr(host); err == nil {
			if err := checkAddr(a, nil); err != nil {
				return nil, err
			}
		}
		dialled = append(dialled, address)
		return nil, errors.New("no network in this test")
	}
	tool, err := fe.tool()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, raw string) {
		args, err := json.Marshal(map[string]string{"url": raw})
		require.NoError(t, err)
		var out tools.Outcome
		done := make(chan struct{})
		go func() {
			defer close(done)
			out = tool.Call(context.Background(), nil, args)
		}()
		select { // a watchdog: no network is reached, so nothing waits
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("the call of %q did not end", raw)
		}
		require.False(t, out.Success, out.Text)
		require.NotEmpty(t, out.Text)
		u, perr := parseURL(raw)
		if perr != nil {
			var ve *tools.ValidationError
			require.ErrorAs(t, out.Err, &ve, out.Text)
			return
		}
		require.Contains(t, []string{"http", "https"}, u.Scheme)
		require.Nil(t, u.User)
		require.NotEmpty(t, u.Hostname())
		require.LessOrEqual(t, len(strings.TrimSpace(raw)), maxURLLength)
		for _, d := range dialled {
			host, _, _ := net.SplitHostPort(d)
			if a, err := netip.ParseAddr(host); err == nil {
				require.NoError(t, checkAddr(a, nil), d)
			}
		}
		dialled = dialled[:0]
	})
}

// FuzzToMarkdown converts any page: it never panics, however deep its
// elements nest.
func FuzzToMarkdown(f *testing.F) {
	for _, seed := range []string{
		"<h1>a</h1><p>b <a href='/c'>d</a></p>", strings.Repeat("<div>", 5000) + "x",
		"<table><tr><td>1<td>2</table>", "<ul><li><ul><li>x</ul></ul>", "<pre><code>a\n\tb</code></pre>",
		"<a href='javascript:x'>y</a><img src='data:image/png;base64,AAAA'>", "\x00<p\x00>",
	} {
		f.Add(seed)
	}
	at, _ := url.Parse("https://example.com/doc/page.html")
	f.Fuzz(func(t *testing.T, page string) {
		if len(page) > 1<<16 {
			return
		}
		_, _ = toMarkdown(context.Background(), page, at)
	})
}

// A page nested far deeper than the converter could recurse is refused
// by the parser, with words.
func TestDeepPage(t *testing.T) {
	at, _ := url.Parse("https://example.com/")
	_, err := toMarkdown(context.Background(), strings.Repeat("<div>", 200_000)+"deep", at)
	require.ErrorContains(t, err, "exceeds 512")
	md, err := toMarkdown(context.Background(), strings.Repeat("<div>", 400)+"deep", at)
	require.NoError(t, err)
	require.Contains(t, md, "deep")
}

// A page the parser would take minutes over is stopped with the fetch's
// context: a cancelled one stops it at once, and the tool's timeout ends
// the call with words.
func TestSlowPage(t *testing.T) {
	at, _ := url.Parse("https://example.com/")
	slow := strings.Repeat("<td>x", 1<<20) // minutes of parsing
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := toMarkdown(ctx, slow, at)
	require.ErrorIs(t, err, context.Canceled)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, slow)
	}))
	defer srv.Close()
	tool, err := New(Options{Timeout: time.Second, Allow: loopback})
	require.NoError(t, err)
	var out tools.Outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		out = call(t, context.Background(), tool, srv.URL, "")
	}()
	select { // a watchdog: the timeout, not the parser, ends the call
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the call did not end")
	}
	require.False(t, out.Success)
	require.Contains(t, out.Text, "within 1s")
}
