package inspector_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/inspector"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
)

// watchdog bounds every wait of these tests: generous, never a timing bet.
const watchdog = 2 * time.Minute

func within(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	t.Cleanup(cancel)
	return ctx
}

// team is the agents of the scripted run.
var team = map[string]agents.Definition{
	"reviewer": {Description: "Reviews notes.", Prompt: "You review notes.", Tools: []string{"read_file"}},
}

// mainModel is the main agent's script: write a file, have the reviewer
// read it, answer; the reviewer reads and approves.
func mainModel() *scripted.Model {
	return scripted.New(
		scripted.When(scripted.SystemContains("You review notes."),
			scripted.ToolCall("read_file", `{"file_path":"notes/plan.md"}`),
			scripted.Text("The plan is **fine**.")),
		scripted.ToolCall("write_file", `{"file_path":"notes/plan.md","content":"ship on Friday\n"}`),
		scripted.ToolCall("Task", `{"subagent_type":"reviewer","description":"Review the plan","prompt":"Review notes/plan.md."}`),
		scripted.Text("Done: the plan is written and reviewed.\n\n```\nship on Friday\n```"),
	)
}

// run is a filled store: a main session that wrote a file and ran a
// subagent, the subagent's session, and a fork of the main one.
type run struct {
	st                store.Store
	main, child, fork string
	sets              []session.Reducers
	client            func(m model.Model) *offshoot.Client // a client on the main session
}

// filled returns st after a scripted run with a subagent, and a fork.
func filled(t testing.TB, st store.Store) run {
	t.Helper()
	ctx := within(t)
	r := run{st: st, main: "main-1", fork: "fork-1"}
	r.client = func(m model.Model) *offshoot.Client {
		c, err := offshoot.NewClient(offshoot.Options{Model: m, Agents: team, Store: st, SessionID: r.main,
			SessionTags: map[string]string{"offshoot.kind": "chat", "offshoot.question": "Write the plan and have it reviewed.", "offshoot.turns": "1", "offshoot.tokens": "1200", "offshoot.tokens.cached": "300"}})
		require.NoError(t, err)
		return c
	}
	c := r.client(mainModel())
	for msg := range c.Query(ctx, "Write the plan and have it reviewed.") {
		if res, ok := msg.(offshoot.ResultMessage); ok {
			require.NoError(t, res.Err)
		}
	}
	r.sets = append(c.Tools().Reducers(), runner.Reducers())
	require.NoError(t, c.Close())
	kids, err := st.List(ctx, store.Query{Parent: r.main})
	require.NoError(t, err)
	require.Len(t, kids, 1, "the reviewer's session")
	r.child = kids[0].ID
	var ends []uint64
	for b, err := range st.Batches(ctx, r.main, 0, 0) {
		require.NoError(t, err)
		ends = append(ends, b.Last())
	}
	require.Greater(t, len(ends), 2)
	require.NoError(t, store.Fork(ctx, st, r.main, ends[1], r.fork))
	return r
}

// host is the address the handler tests serve at.
const host = "127.0.0.1:8080"

// newServer returns the inspector over r's store.
func newServer(t testing.TB, r run, actions bool) *inspector.Server {
	t.Helper()
	s, err := inspector.New(r.st, inspector.Options{Host: host, Token: "tok", Reducers: r.sets, AllowActions: actions, ProjectDir: t.TempDir()})
	require.NoError(t, err)
	return s
}

// get serves a GET of target with the token's cookie and returns the
// status and the body.
func get(t testing.TB, s http.Handler, target string) (int, string) {
	t.Helper()
	return do(t, s, httptest.NewRequest(http.MethodGet, target, nil))
}

func do(t testing.TB, s http.Handler, req *http.Request) (int, string) {
	t.Helper()
	req.Host = host
	req.AddCookie(&http.Cookie{Name: "offshoot_ui_8080", Value: "tok"})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// batchEnds returns the seqs where session id's own batches end.
func batchEnds(t testing.TB, st store.Store, id string) []uint64 {
	t.Helper()
	var out []uint64
	for b, err := range st.Batches(within(t), id, 0, 0) {
		require.NoError(t, err)
		out = append(out, b.Last())
	}
	return out
}
