package inspector_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/inspector"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/store"
)

// browserRequired, set, makes a machine without chromium fail the
// browser tests instead of skipping them (.ci/run sets it).
const browserRequired = "OFFSHOOT_TEST_BROWSER_REQUIRED"

// screenshots is where the browser tests keep a picture of each page
// (ignored by git).
const screenshots = "testdata/screenshots"

// browser returns a context of a headless chromium at 1280×800, or skips
// the test saying how to run it.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("OFFSHOOT_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		msg := "no chromium: the browser tests need it (Debian: apt-get install chromium; or set OFFSHOOT_CHROMIUM to a Chrome or Chromium binary)"
		if os.Getenv(browserRequired) != "" {
			t.Fatal(msg + "; " + browserRequired + " is set, so they may not skip")
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(within(t), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx), "start chromium")
	return ctx
}

// shot saves a screenshot of the page as testdata/screenshots/name.png.
func shot(t *testing.T, name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		png, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		require.NoError(t, os.MkdirAll(screenshots, 0o755))
		path := filepath.Join(screenshots, name+".png")
		t.Logf("screenshot: %s", path)
		return os.WriteFile(path, png, 0o644)
	})
}

// value runs a, which returns a value, and returns it.
func value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err)
	return v
}

// until waits for the JavaScript predicate to hold, under the watchdog.
func until(t *testing.T, ctx context.Context, predicate string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(watchdog)))
	require.NoError(t, err, "waiting for %s", predicate)
}

// serve starts the inspector over r on a local port.
func serve(t *testing.T, r run, actions bool) (*httptest.Server, *inspector.Server) {
	ts := httptest.NewUnstartedServer(nil)
	s, err := inspector.New(r.st, inspector.Options{Host: ts.Listener.Addr().String(), Reducers: r.sets, AllowActions: actions})
	require.NoError(t, err)
	ts.Config.Handler = s
	ts.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections() // a live page's stream ends with the test
		ts.Close()
	})
	return ts, s
}

// A person's way through the pages in a real browser: the sessions, a
// session's chat, picking a seq, a diff, the tree, a live session.
func TestInABrowser(t *testing.T) {
	ctx := browser(t)
	r := filled(t, store.NewMemory())
	ts, s := serve(t, r, false)
	ends := batchEnds(t, r.st, r.main)
	h, err := r.st.Header(within(t), r.main)
	require.NoError(t, err)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.URL()),
		chromedp.WaitVisible("#sessions"),
		shot(t, "sessions"),
	))
	assert.Contains(t, value(t, ctx, chromedp.Text("#sessions")), "Write the plan and have it reviewed.")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(`#sessions a[href^="/session?id=main-1"]`),
		chromedp.WaitVisible("#chat .msg"),
		shot(t, "session"),
	))
	assert.NotContains(t, value(t, ctx, chromedp.Location()), "token", "the token left the address bar")
	assert.Contains(t, value(t, ctx, chromedp.Text("#chat")), "Done: the plan is written and reviewed.")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(fmt.Sprintf(`#timeline li[data-seq="%d"] a.seq`, ends[1])),
		chromedp.WaitVisible("#state-seq"),
		shot(t, "state"),
	))
	assert.Equal(t, fmt.Sprint(ends[1]), value(t, ctx, chromedp.Text("#state-seq")))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/session?id=main-1"),
		chromedp.WaitVisible("#diff-form"),
		chromedp.SetValue("#diff-from", "0"),
		chromedp.SetValue("#diff-to", fmt.Sprint(h.Seq)),
		chromedp.Submit("#diff-form"),
		chromedp.WaitVisible("#file-changes"),
		shot(t, "diff"),
	))
	text := value(t, ctx, chromedp.Text("#file-changes"))
	assert.Contains(t, text, "notes/plan.md")
	assert.Contains(t, text, "+ship on Friday")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/session?id=main-1"),
		chromedp.WaitVisible("#tree-link"),
		chromedp.Click("#tree-link"),
		chromedp.WaitVisible("#tree"),
		shot(t, "tree"),
	))
	text = value(t, ctx, chromedp.Text("#tree"))
	assert.Contains(t, text, "reviewer")
	assert.Contains(t, text, "fork-1")

	// Live: the page is open and listening before the batch commits.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/session?id=main-1")))
	until(t, ctx, `document.getElementById("live-status").textContent.startsWith("live:")`)
	c := r.client(scripted.New(scripted.Text("A live answer, committed while the page was open.")))
	for range c.Query(within(t), "And now?") {
	}
	require.NoError(t, c.Close())
	until(t, ctx, `document.getElementById("chat").textContent.includes("A live answer, committed")`)
	require.NoError(t, chromedp.Do(ctx, shot(t, "live")))
	assert.Contains(t, value(t, ctx, chromedp.Text("#live-status")), "live: seq")
}

// In a real browser, hostile text is shown as text and runs nothing.
func TestHostileContentInABrowser(t *testing.T) {
	ctx := browser(t)
	var payloads []string
	for _, h := range hostile {
		payloads = append(payloads, h.text)
	}
	payloads = append(payloads, `<script>document.title="pwned"</script>`, `"><img src=x onerror="document.title='pwned'">`,
		`<svg onload="document.title='pwned'">`, `<a href="javascript:document.title='pwned'">click</a>`)
	payload := strings.Join(payloads, "\n")
	st, sets, id := hostileStore(t, "hostile-1", payload, `"><img src=x onerror=alert(1)>.md`)
	ts, s := serve(t, run{st: st, sets: sets}, true)
	for _, page := range []string{"/session?id=", "/state?id=", "/tree?id="} {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.Navigate(s.URL()),
			chromedp.Navigate(ts.URL+page+url.QueryEscape(id)),
			chromedp.WaitVisible("main"),
		))
		assert.Equal(t, "offshoot ui", value(t, ctx, chromedp.Title()), page)
		want := `<script>document.title="pwned"</script>`
		if page == "/tree?id=" { // the tree shows the first question's start only
			want = `<script>alert("x")</script>`
		}
		assert.Contains(t, value(t, ctx, chromedp.TextContent("main")), want, page)
		injected := value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("main a[href^='javascript'], main img, main svg, main script, main [onerror], main [onload]").length`))
		assert.Zero(t, injected, page)
	}
}
