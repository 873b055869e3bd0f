package webfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// loopback lets the tests reach their servers on this machine.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// call calls tool with url and prompt as a model would.
func call(t *testing.T, ctx context.Context, tool tools.Tool, url, prompt string) tools.Outcome {
	t.Helper()
	args, err := json.Marshal(map[string]string{"url": url, "prompt": prompt})
	require.NoError(t, err)
	return tool.Call(ctx, nil, args)
}

// newTool returns the tool with opts, loopback allowed unless opts say.
func newTool(t *testing.T, opts Options) tools.Tool {
	t.Helper()
	if opts.Allow == nil {
		opts.Allow = loopback
	}
	tool, err := New(opts)
	require.NoError(t, err)
	return tool
}

// The tool reads HTML as Markdown and text, Markdown and JSON as they
// are; it refuses other types and says what it was; it cuts an oversize
// body and says so.
func TestFetch(t *testing.T) {
	mux := http.NewServeMux()
	page := func(contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if contentType != "" {
				w.Header().Set("Content-Type", contentType)
			}
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/page.html", page("text/html; charset=utf-8", `<!doctype html><html><head><title>T</title><script>alert(1)</script><style>p{}</style></head>
<body><h1>Effective Go</h1><p>Interfaces are named with <strong>-er</strong>: <a href="/doc/reader">Reader</a>.</p>
<ul><li>one</li><li>two</li></ul><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>`))
	mux.HandleFunc("/latin1.html", page("text/html; charset=iso-8859-1", "<p>caf\xe9</p>"))
	mux.HandleFunc("/plain.txt", page("text/plain", "just text\n<b>not html</b>\n"))
	mux.HandleFunc("/readme.md", page("text/markdown", "# Title\n\n* item\n"))
	mux.HandleFunc("/data.json", page("application/json", `{"a":[1,2]}`))
	mux.HandleFunc("/problem", page("application/problem+json", `{"title":"x"}`))
	mux.HandleFunc("/sniffed", page("", "<html><body><p>sniffed</p></body></html>"))
	mux.HandleFunc("/image.png", page("image/png", "\x89PNG\r\n\x1a\n...."))
	mux.HandleFunc("/archive", page("application/zip", "PK\x03\x04"))
	mux.HandleFunc("/big.txt", page("text/plain", strings.Repeat("x", 2000)))
	mux.HandleFunc("/missing", http.NotFound)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tool := newTool(t, Options{MaxBytes: 1000})

	for _, tt := range []struct {
		name, path string
		ok         bool
		want, not  []string
	}{
		{"HTML becomes Markdown", "/page.html", true,
			[]string{"# how are interfaces named?\n", "text/html, converted to Markdown", "# Effective Go", "**-er**", "[Reader](" + srv.URL + "/doc/reader)", "- one\n- two", "| a | b |"},
			[]string{"alert(1)", "<script", "p{}", "<h1>"}},
		{"a charset is decoded", "/latin1.html", true, []string{"café"}, nil},
		{"plain text as it is", "/plain.txt", true, []string{"(text/plain)", "just text\n<b>not html</b>"}, nil},
		{"Markdown as it is", "/readme.md", true, []string{"# Title\n\n* item"}, nil},
		{"JSON as it is", "/data.json", true, []string{`{"a":[1,2]}`}, nil},
		{"a JSON type", "/problem", true, []string{`{"title":"x"}`}, nil},
		{"no type: sniffed", "/sniffed", true, []string{"sniffed", "converted to Markdown"}, []string{"<p>"}},
		{"an image is refused", "/image.png", false, []string{"image/png (a .png file), which web_fetch does not read: it reads HTML, plain text, Markdown and JSON"}, []string{"PNG"}},
		{"an archive is refused", "/archive", false, []string{"application/zip", "does not read"}, nil},
		{"an oversize body is cut", "/big.txt", true, []string{strings.Repeat("x", 1000) + "\n\n[The page is longer than 1000 bytes: only its first 1000 bytes were read.]"}, []string{strings.Repeat("x", 1001)}},
		{"a missing page", "/missing", false, []string{"answered 404 Not Found"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, context.Background(), tool, srv.URL+tt.path, "how are interfaces named?")
			require.Equal(t, tt.ok, out.Success, out.Text)
			for _, w := range tt.want {
				require.Contains(t, out.Text, w)
			}
			for _, n := range tt.not {
				require.NotContains(t, out.Text, n)
			}
		})
	}
}

// Markdown longer than the tool returns is cut, and the model told so.
func TestFetchLongText(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("line of text\n", maxChars/10))
	}))
	defer srv.Close()
	out := call(t, context.Background(), newTool(t, Options{}), srv.URL, "")
	require.True(t, out.Success, out.Text)
	require.Contains(t, out.Text, "# the page\n")
	require.Contains(t, out.Text, fmt.Sprintf("[The text is cut at %d characters; the rest of the page is not shown.]", maxChars))
	require.Less(t, len(out.Text), maxChars+500)
	require.True(t, out.Value.(result).Cut)
}

// Redirects on the same host are followed, five at most; a redirect to
// another host is returned, not followed; the address of each is
// checked, so a name that answers with an inside address the second time
// (DNS rebinding) is refused.
func TestRedirects(t *testing.T) {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			fmt.Fprint(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://[::1]:1/secret", http.StatusFound)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/creds", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://user:pw@"+r.Host+"/hop/0", http.StatusFound)
	})
	mux.HandleFunc("/rebind", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hop/0", http.StatusFound)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	port := srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()

	// site.test answers with the test server's address, then with an
	// address inside.
	var mu sync.Mutex
	lookups := 0
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		lookups++
		if host == "site.test" && lookups == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("10.0.0.9")}, nil
	}
	rebinding, err := newFetcher(Options{Allow: loopback}, lookup).tool()
	require.NoError(t, err)
	tool := newTool(t, Options{})

	for _, tt := range []struct {
		name string
		tool tools.Tool
		url  string
		ok   bool
		want string
	}{
		{"five redirects are followed", tool, srv.URL + "/hop/5", true, "arrived"},
		{"six are not", tool, srv.URL + "/hop/6", false, "it redirected more than 5 times"},
		{"a loop is stopped", tool, srv.URL + "/loop", false, "it redirected more than 5 times"},
		{"another host is returned", tool, srv.URL + "/away", true, "redirects to http://[::1]:1/secret, on another host, which was not followed: to read it, call web_fetch again with that URL."},
		{"another scheme is refused", tool, srv.URL + "/file", false, "file URLs are not fetched"},
		{"credentials are refused", tool, srv.URL + "/creds", false, "holds a user name or password"},
		{"a rebinding name is refused", rebinding, fmt.Sprintf("http://site.test:%d/rebind", port), false, "site.test resolves to 10.0.0.9, a private address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, context.Background(), tt.tool, tt.url, "")
			require.Equal(t, tt.ok, out.Success, out.Text)
			require.Contains(t, out.Text, tt.want)
		})
	}
}

// Without an allowance, the tool reaches nothing on this machine: not by
// address, not by a name that resolves to it.
func TestRefusesLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("the server was reached")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(interface{ AddrPort() netip.AddrPort }).AddrPort().Port()
	tool, err := New(Options{})
	require.NoError(t, err)
	for _, u := range []string{srv.URL, fmt.Sprintf("http://localhost:%d/", port), fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port), fmt.Sprintf("http://0.0.0.0:%d/", port)} {
		out := call(t, context.Background(), tool, u, "")
		require.False(t, out.Success, out.Text)
		require.Contains(t, out.Text, "web_fetch reaches only public internet addresses", u)
	}
}

// A server that does not answer is cut by the tool's timeout; a call
// whose context ends stops at once, even with the body half sent.
func TestSlowServer(t *testing.T) {
	release := make(chan struct{})
	reached := make(chan struct{}, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/half" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "the start")
			w.(http.Flusher).Flush()
		}
		reached <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	// The server never answers: whatever the machine's speed, the fetch
	// ends by the timeout.
	out := call(t, context.Background(), newTool(t, Options{Timeout: 200 * time.Millisecond}), srv.URL+"/never", "")
	require.False(t, out.Success, out.Text)
	require.Contains(t, out.Text, "did not answer within 200ms")

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-reached
		cancel()
	}()
	out = call(t, ctx, newTool(t, Options{}), srv.URL+"/half", "")
	require.False(t, out.Success)
	require.ErrorIs(t, out.Err, context.Canceled)
}

// The model's url is checked before anything is fetched, with words that
// say what to give.
func TestBadURL(t *testing.T) {
	tool := newTool(t, Options{})
	for url, want := range map[string]string{
		"":                         "url",
		"go.dev/doc":               "has no scheme; give a full http or https URL such as https://go.dev/doc",
		"ftp://example.com/":       "ftp URLs are not fetched",
		"file:///etc/passwd":       "file URLs are not fetched",
		"https://u:p@example.com/": "holds a user name or password",
		"http:///path":             "names no host",
		"https://" + strings.Repeat("a", 2000) + ".com": "must be at most 2000 characters",
		"http://[::1": "is not a URL",
	} {
		out := call(t, context.Background(), tool, url, "")
		require.False(t, out.Success, url)
		require.Contains(t, out.Text, "Tool validation failed: web_fetch: ", url)
		require.Contains(t, out.Text, want, url)
	}
}

// Options that cannot work are refused with what to give.
func TestNewOptions(t *testing.T) {
	_, err := New(Options{Timeout: -time.Second})
	require.ErrorContains(t, err, "Options.Timeout is -1s")
	_, err = New(Options{MaxBytes: -1})
	require.ErrorContains(t, err, "Options.MaxBytes is -1")
	_, err = New(Options{Allow: []netip.Prefix{{}}})
	require.ErrorContains(t, err, "invalid prefix")
	tool, err := New(Options{})
	require.NoError(t, err)
	require.Equal(t, "web_fetch", tool.Spec().Name)
	require.Contains(t, string(tool.Spec().Params), `"url"`)
}
