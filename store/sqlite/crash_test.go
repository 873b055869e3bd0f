package sqlite_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
	"github.com/offshoot-dev/offshoot/store/sqlite"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// crashEnv names the database file of an agent process that TestCrash
// starts and kills.
const crashEnv = "OFFSHOOT_SQLITE_CRASH_DB"

// agentPrompt is the crashing agent's prompt: the VFS tools and a note
// tool that says when it runs.
func agentPrompt(t testing.TB) *prompt.Prompt {
	t.Helper()
	note, err := tools.New("note", "Note a line.", func(_ context.Context, _ *tools.Invocation, p struct {
		Text string `json:"text"`
	}) (tools.Result[string], error) {
		fmt.Println("tool") // between the tool's result and its record
		return tools.OK("noted", p.Text).WithEvents(vfs.FileWritten{Path: "notes/" + p.Text + ".md", Content: p.Text}), nil
	})
	require.NoError(t, err)
	p, err := prompt.New("crash", "agent", prompt.Markdown[prompt.NoParams]("Role", "You take notes.", prompt.WithTools(note)), vfs.Section(vfs.Options{}))
	require.NoError(t, err)
	return p
}

// reducers are every set the agent's session is reduced by.
func reducers(t testing.TB, p *prompt.Prompt) []session.Reducers {
	t.Helper()
	r, err := p.Render()
	require.NoError(t, err)
	return append(r.Tools.Reducers(), runner.Reducers())
}

// marking is the agent's store, saying on standard output what it stored.
type marking struct{ store.Store }

func (m marking) Append(ctx context.Context, id string, b store.Batch) error {
	err := m.Store.Append(ctx, id, b)
	if err == nil {
		fmt.Println("appended", b.Last())
	}
	return err
}

func (m marking) PutCheckpoint(ctx context.Context, id string, c store.Checkpoint) error {
	fmt.Println("checkpoint")
	return m.Store.PutCheckpoint(ctx, id, c)
}

// openAgent opens (or starts) the agent's session in the store at path,
// and the last evaluation to carry on ("" for none).
func openAgent(t testing.TB, st store.Store, p *prompt.Prompt) (*session.Session, *journal.Journal, string) {
	t.Helper()
	ctx := context.Background()
	j := journal.New(st, journal.Options{CheckpointEvery: 3})
	reg := serde.NewRegistry()
	var s *session.Session
	var err error
	if _, herr := st.Header(ctx, "agent"); errors.Is(herr, store.ErrNotFound) {
		s, err = session.New(session.WithID("agent"), session.WithRegistry(reg), session.WithJournal(j))
	} else {
		s, err = j.Open(ctx, "agent", reg, reducers(t, p))
	}
	require.NoError(t, err)
	evals := runner.Evaluations(s.Snapshot())
	last := ""
	if len(evals) > 0 {
		last = evals[len(evals)-1]
	}
	return s, j, last
}

// TestCrashAgent is the agent process of TestCrash: it carries its stored
// session on, turn after turn — a model call, a tool call, their records,
// now and then a checkpoint — saying on standard output where it is,
// until it is killed.
func TestCrashAgent(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("the agent process of TestCrash")
	}
	st, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	p := agentPrompt(t)
	s, _, last := openAgent(t, marking{st}, p)
	n := 0
	m := scripted.New(scripted.Repeat(scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		if strings.Contains(req.Messages[0].Content, "You write the summary") {
			fmt.Println("summary") // a compaction's summary turn, before its record
			return &model.Response{Message: model.AssistantMessage("The agent took notes.")}, nil
		}
		fmt.Println("model")
		if msgs := req.Messages; msgs[len(msgs)-1].Role == model.RoleUser {
			n++
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c" + strconv.Itoa(n), Name: "note", Arguments: fmt.Sprintf(`{"text":"n%d"}`, n)})}, nil
		}
		return &model.Response{Message: model.AssistantMessage("Noted.")}, nil
	})))
	for i := range 1000 {
		resp, err := runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: m, UserMessage: "Take a note.", Continue: last})
		require.NoError(t, err)
		last = resp.Evaluation
		if i%2 == 1 {
			_, err := runner.Compact(context.Background(), runner.Request{Session: s, Continue: last, Model: m}, "")
			require.NoError(t, err)
		}
	}
}

// TestCrash kills an agent process at random points — in a model call,
// between a tool's result and its record, in a checkpoint, in a
// compaction's summary turn — fifty times,
// and after each kill opens the store: the file passes SQLite's integrity
// check, the session holds every batch that was appended before the
// kill, it opens, and its conversation goes on.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	path := filepath.Join(t.TempDir(), "sessions.db")
	rng := rand.New(rand.NewPCG(24, 11))
	kinds := []string{"model", "tool", "checkpoint", "summary"}
	p := agentPrompt(t)
	for i := range 50 {
		kind, after := kinds[i%len(kinds)], 1+rng.IntN(6)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashAgent$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		var appended uint64
		seen, killed := 0, false
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			line := lines.Text()
			if seq, ok := strings.CutPrefix(line, "appended "); ok {
				appended, _ = strconv.ParseUint(seq, 10, 64)
			}
			if line == kind {
				if seen++; seen == after {
					require.NoError(t, cmd.Process.Kill())
					killed = true
					break
				}
			}
		}
		_ = cmd.Wait()
		require.True(t, killed, "round %d: the agent ended before its %d%s %s", i, after, ordinal(after), kind)

		ctx := context.Background()
		st, err := sqlite.Open(context.Background(), path)
		require.NoError(t, err, "round %d", i)
		require.NoError(t, st.Check(ctx), "round %d: the file after a kill at a %s", i, kind)
		h, err := st.Header(ctx, "agent")
		require.NoError(t, err)
		require.GreaterOrEqual(t, h.Seq, appended, "round %d: a batch appended before the kill is lost", i)
		s, j, last := openAgent(t, st, p)
		all := runner.Conversation(s.Snapshot(), last)
		for c := range session.All[runner.Compacted](s) {
			require.NotEmpty(t, c.Summary, "round %d: a compaction is stored whole", i)
			require.LessOrEqual(t, c.Upto, len(all), "round %d", i)
		}
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: scripted.New(scripted.Text("Carried on.")), UserMessage: "Go on.", Continue: last})
		require.NoError(t, err, "round %d: the conversation does not go on", i)
		require.Equal(t, "Carried on.", resp.Text)
		require.NoError(t, s.Close())
		require.NoError(t, j.Close())
		require.NoError(t, st.Close())
	}
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
