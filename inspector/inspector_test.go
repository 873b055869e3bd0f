package inspector_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/inspector"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Every page shows what the stored run holds.
func TestPages(t *testing.T) {
	r := filled(t, store.NewMemory())
	s := newServer(t, r, false)
	h, err := r.st.Header(within(t), r.main)
	require.NoError(t, err)
	ends := batchEnds(t, r.st, r.main)
	tests := []struct {
		name, target string
		code         int
		want         []string
		not          []string
	}{
		{"sessions", "/", 200, []string{`href="/session?id=main-1"`, "Write the plan and have it reviewed.", "chat", "1.2k", "25%"}, []string{r.child, "fork-1"}},
		{"all sessions", "/?all=1", 200, []string{"fork-1", "Review the plan",
			`agent (reviewer)</td><td class="n">0</td><td class="n">-</td>`}, nil}, // a subagent's tags hold its parent's counts
		{"search", "/?q=REVIEW+THE&all=1", 200, []string{"Review the plan", "1 sessions"}, []string{`href="/session?id=main-1" title=`}},
		{"no match", "/?q=nothing-like-it", 200, []string{"no sessions match"}, nil},
		{"sorted, past the last page", "/?sort=tokens&order=asc&page=99&all=1", 200, []string{"3 sessions"}, nil},
		{"unknown sort", "/?sort=evil&order=sideways", 200, []string{"main-1"}, nil},
		{"a session", "/session?id=main-1", 200, []string{
			"Done: the plan is written and reviewed.", "<pre><code>ship on Friday\n</code></pre>",
			`calls <span class="tool">write_file</span>`, `calls <span class="tool">Task</span>`,
			`data-live="/live?id=main-1&amp;after=` + fmt.Sprint(h.Seq), "ToolInvoked", "fork-1", `href="/tree?id=main-1"`,
		}, nil},
		{"a subagent's session", "/session?id=" + url.QueryEscape(r.child), 200, []string{"The plan is **fine**.", "forked from", `class="msg tool"`}, nil},
		{"a page of the log", fmt.Sprintf("/session?id=main-1&after=%d", ends[0]), 200, []string{"Done: the plan"}, nil},
		{"the state", "/state?id=main-1", 200, []string{"notes/plan.md", "ship on Friday", "offshoot.runner.ConversationMessage", `<span class="key">`}, nil},
		{"the state at a seq", fmt.Sprintf("/state?id=main-1&seq=%d", ends[0]), 200, []string{"Files (0)"}, nil},
		{"a fork's state", "/state?id=fork-1", 200, []string{"fork-1"}, nil},
		{"a diff", fmt.Sprintf("/diff?id=main-1&from=0&to=%d", h.Seq), 200, []string{"added", "notes/plan.md", `<span class="add">&#43;ship on Friday</span>`, "offshoot.runner.ToolInvoked"}, nil},
		{"no change", fmt.Sprintf("/diff?id=main-1&from=%d&to=%d", h.Seq, h.Seq), 200, []string{"no file changed", "no slice changed"}, nil},
		{"the tree", "/tree?id=" + url.QueryEscape(r.child), 200, []string{"main-1", "fork-1", "reviewer", "Review the plan", "in process", `class="node current"`,
			"agent reviewer</span> <span class=\"at\">@"}, nil},
		{"no id", "/session", 400, []string{"no session given"}, nil},
		{"an unknown session", "/session?id=nope", 404, []string{"no session nope is stored"}, nil},
		{"a seq that is none", "/state?id=main-1&seq=-1", 400, []string{"is not a seq"}, nil},
		{"a seq past the end", "/state?id=main-1&seq=99999", 422, []string{"ends at seq"}, nil},
		{"a seq before a fork", "/state?id=fork-1&seq=0", 422, []string{"where it was forked from"}, nil},
		{"a diff past the end", "/diff?id=main-1&from=0&to=99999", 422, []string{"cannot compare"}, nil},
		{"a live stream of an unknown session", "/live?id=nope", 404, nil, nil},
		{"the script", "/static/app.js", 200, []string{"EventSource"}, nil},
		{"no page", "/nothing", 404, nil, nil},
	}
	if inside := insideBatch(t, r); inside > 0 {
		tests = append(tests, struct {
			name, target string
			code         int
			want         []string
			not          []string
		}{"a seq inside a batch", fmt.Sprintf("/state?id=main-1&seq=%d", inside), 422, []string{"inside a batch"}, nil})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, s, tt.target)
			assert.Equal(t, tt.code, code, body)
			for _, w := range tt.want {
				assert.Contains(t, body, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, body, n)
			}
		})
	}
}

// insideBatch returns a seq inside one of the main session's batches,
// 0 when every batch holds one event.
func insideBatch(t *testing.T, r run) uint64 {
	for b, err := range r.st.Batches(within(t), r.main, 0, 0) {
		require.NoError(t, err)
		if b.Last() > b.Seq {
			return b.Seq
		}
	}
	return 0
}

// Only a request with the token, naming the server's host, from its own
// page, is served.
func TestTheGuard(t *testing.T) {
	r := filled(t, store.NewMemory())
	s := newServer(t, r, false)
	serve := func(req *http.Request) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	req := func(method, target string, edit func(*http.Request)) *http.Request {
		q := httptest.NewRequest(method, target, nil)
		q.Host = host
		q.AddCookie(&http.Cookie{Name: "offshoot_ui_8080", Value: "tok"})
		if edit != nil {
			edit(q)
		}
		return q
	}
	noCookie := func(q *http.Request) { q.Header.Del("Cookie") }
	tests := []struct {
		name string
		req  *http.Request
		code int
		says string
	}{
		{"with the cookie", req("GET", "/", nil), 200, "Sessions"},
		{"without a token", req("GET", "/", noCookie), 401, "no token"},
		{"a wrong cookie", req("GET", "/", func(q *http.Request) {
			q.Header.Del("Cookie")
			q.AddCookie(&http.Cookie{Name: "offshoot_ui_8080", Value: "guess"})
		}), 401, "no token"},
		{"another port's cookie", req("GET", "/", func(q *http.Request) {
			q.Header.Del("Cookie")
			q.AddCookie(&http.Cookie{Name: "offshoot_ui_9090", Value: "tok"})
		}), 401, "no token"},
		{"a wrong token", req("GET", "/?token=guess", noCookie), 401, "wrong token"},
		{"another host (DNS rebinding)", req("GET", "/", func(q *http.Request) { q.Host = "evil.example:8080" }), 421, "only at its own address"},
		{"another port", req("GET", "/", func(q *http.Request) { q.Host = "127.0.0.1:9090" }), 421, ""},
		{"localhost names the same server", req("GET", "/", func(q *http.Request) { q.Host = "localhost:8080" }), 200, ""},
		{"another origin", req("GET", "/", func(q *http.Request) { q.Header.Set("Origin", "http://evil.example") }), 403, "another site"},
		{"a null origin", req("GET", "/", func(q *http.Request) { q.Header.Set("Origin", "null") }), 403, "another site"},
		{"its own origin", req("GET", "/", func(q *http.Request) { q.Header.Set("Origin", "http://127.0.0.1:8080") }), 200, ""},
		{"a cross-site fetch", req("GET", "/", func(q *http.Request) { q.Header.Set("Sec-Fetch-Site", "cross-site") }), 403, "another site"},
		{"a same-site fetch from another port", req("GET", "/", func(q *http.Request) { q.Header.Set("Sec-Fetch-Site", "same-site") }), 403, "another site"},
		{"fork, read-only", req("POST", "/fork?id=main-1&at=1", nil), 403, "--allow-actions"},
		{"export, read-only", req("GET", "/export?id=main-1", nil), 403, "--allow-actions"},
		{"write-back, read-only", req("GET", "/writeback?id=main-1", nil), 403, "--allow-actions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := serve(tt.req)
			assert.Equal(t, tt.code, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), tt.says)
			assert.Contains(t, rec.Header().Get("Content-Security-Policy"), "script-src 'self'")
			assert.Equal(t, "no-referrer", rec.Header().Get("Referrer-Policy"))
		})
	}

	t.Run("the token of the URL becomes a cookie, and leaves the address", func(t *testing.T) {
		rec := serve(req("GET", "/session?id=main-1&token=tok", noCookie))
		require.Equal(t, http.StatusSeeOther, rec.Code)
		assert.Equal(t, "/session?id=main-1", rec.Header().Get("Location"))
		c := rec.Result().Cookies()
		require.Len(t, c, 1)
		assert.Equal(t, "offshoot_ui_8080", c[0].Name)
		assert.Equal(t, "tok", c[0].Value)
		assert.True(t, c[0].HttpOnly)
		assert.Equal(t, http.SameSiteStrictMode, c[0].SameSite)
	})
}

// New says what is missing.
func TestNewRefuses(t *testing.T) {
	_, err := inspector.New(nil, inspector.Options{Host: host})
	assert.ErrorContains(t, err, "no store given")
	_, err = inspector.New(store.NewMemory(), inspector.Options{})
	assert.ErrorContains(t, err, "Options.Host is empty")
	_, err = inspector.New(store.NewMemory(), inspector.Options{Host: "nowhere"})
	assert.ErrorContains(t, err, "not a host and port")
	s, err := inspector.New(store.NewMemory(), inspector.Options{Host: host})
	require.NoError(t, err)
	assert.Regexp(t, `^http://127\.0\.0\.1:8080/\?token=[0-9a-f]{48}$`, s.URL())
}

// With actions allowed, the page forks, exports and previews.
func TestActions(t *testing.T) {
	r := filled(t, store.NewMemory())
	s := newServer(t, r, true)
	ctx := within(t)
	ends := batchEnds(t, r.st, r.main)

	req := httptest.NewRequest(http.MethodPost, "/fork", strings.NewReader(fmt.Sprintf("id=main-1&at=%d", ends[1])))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+host)
	code, body := do(t, s, req)
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, "offshoot chat --resume ")
	forks, err := r.st.List(ctx, store.Query{Parent: r.main})
	require.NoError(t, err)
	require.Len(t, forks, 3, "the reviewer's, fork-1 and the new one")

	req = httptest.NewRequest(http.MethodPost, "/fork", strings.NewReader("id=main-1&at=99999"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	code, body = do(t, s, req)
	assert.Equal(t, 422, code)
	assert.Contains(t, body, "cannot fork")

	code, body = get(t, s, "/export?id=main-1")
	require.Equal(t, 200, code, body)
	var snap struct {
		SessionID string `json:"session_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &snap))
	assert.Equal(t, "main-1", snap.SessionID)

	code, body = get(t, s, "/writeback?id=main-1")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, "notes/plan.md")
	assert.Contains(t, body, `<span class="add">&#43;ship on Friday</span>`)
	assert.Contains(t, body, "Nothing was written")

	code, body = get(t, s, "/state?id=main-1")
	require.Equal(t, 200, code)
	assert.Contains(t, body, `id="fork"`)
}

// A live page is sent the batches a session commits while it is open.
func TestLive(t *testing.T) {
	r := filled(t, store.NewMemory())
	ts := httptest.NewUnstartedServer(nil)
	s, err := inspector.New(r.st, inspector.Options{Host: ts.Listener.Addr().String(), Token: "tok", Reducers: r.sets})
	require.NoError(t, err)
	ts.Config.Handler = s
	ts.Start()
	defer ts.Close()
	ctx := within(t)
	h, err := r.st.Header(ctx, r.main)
	require.NoError(t, err)

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/live?id=main-1&after=%d", ts.URL, h.Seq), nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: "offshoot_ui_" + ts.URL[strings.LastIndexByte(ts.URL, ':')+1:], Value: "tok"})
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	require.True(t, lines.Scan())
	assert.Equal(t, ": live", lines.Text(), "the stream is open before the batch commits")

	c := r.client(scripted.New(scripted.Text("A <b>live</b> answer.")))
	for range c.Query(ctx, "And now?") {
	}
	require.NoError(t, c.Close())

	var u struct {
		Timeline, Chat string
		Seq            uint64
	}
	for lines.Scan() {
		if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			require.NoError(t, json.Unmarshal([]byte(data), &u))
			if strings.Contains(u.Chat, "live") {
				break
			}
		}
	}
	require.NoError(t, lines.Err())
	assert.Contains(t, u.Chat, "A &lt;b&gt;live&lt;/b&gt; answer.")
	assert.Contains(t, u.Timeline, "ConversationMessage")
	assert.Greater(t, u.Seq, h.Seq)
}
