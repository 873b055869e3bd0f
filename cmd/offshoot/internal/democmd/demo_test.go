package democmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/workercmd"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// envWorker, set, runs the test binary as offshoot worker with the
// arguments it holds.
const envWorker = "OFFSHOOT_TEST_DEMO_WORKER"

func TestMain(m *testing.M) {
	if args := os.Getenv(envWorker); args != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		env := &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
		cmd := workercmd.Command(env)
		cmd.SetArgs(strings.Fields(args))
		if err := cmd.ExecuteContext(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// testWorker is the command of a worker process: this test binary run as
// offshoot worker --nats url --pool pool.
func testWorker(url, pool string) (*exec.Cmd, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorker+"=--nats "+url+" --pool "+pool)
	return cmd, nil
}

func TestDemoOnWorkerProcesses(t *testing.T) {
	worker := testWorker
	out, err := runDemo(t, context.Background(), demo{workers: 3, worker: worker})
	require.NoError(t, err)
	m := regexp.MustCompile(`3 worker processes \(pids (\d+), (\d+), (\d+)\) run the subagents`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	ran := regexp.MustCompile(`agent-\d+   ⇢ on worker pid (\d+)`).FindAllStringSubmatch(out, -1)
	require.Len(t, ran, 2, out)
	for _, r := range ran {
		assert.Contains(t, m[1:], r[1], "a subagent ran in one of the workers")
	}
	assert.Contains(t, out, "\nparity: ok")
	assert.Contains(t, out, "\nisolation: ok")
	assert.Contains(t, out, "  ⇠ artifact notes/tax.md copied back · 112 bytes\n")
}

// With --nats, the demo's children run on the workers a user started on
// that server (offshoot worker --nats URL --pool NAME).
func TestDemoOnTheWorkersOfAServer(t *testing.T) {
	srv := jetStreamServer(t)
	var pids []string
	for range 2 {
		cmd, err := testWorker(srv.ClientURL(), "team")
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		pids = append(pids, fmt.Sprint(cmd.Process.Pid))
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			_ = cmd.Wait()
		})
	}
	out, err := runDemo(t, context.Background(), demo{nats: srv.ClientURL(), pool: "team"})
	require.NoError(t, err, out)
	assert.Contains(t, out, `the workers of pool "team" at `+srv.ClientURL()+" run the subagents")
	ran := regexp.MustCompile(`agent-\d+   ⇢ on worker pid (\d+)`).FindAllStringSubmatch(out, -1)
	require.Len(t, ran, 2, out)
	for _, r := range ran {
		assert.Contains(t, pids, r[1], "a subagent ran in one of the user's workers")
	}
	assert.Contains(t, out, "\nisolation: ok")
}

// A server no worker serves, or one that does not answer, is a clear
// error that says what to do.
func TestDemoWithoutWorkers(t *testing.T) {
	srv := jetStreamServer(t)
	_, err := runDemo(t, context.Background(), demo{nats: srv.ClientURL(), pool: "nobody", wait: time.Millisecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no worker served pool "nobody" at `+srv.ClientURL())
	assert.Contains(t, err.Error(), "start some with offshoot worker --nats "+srv.ClientURL()+" --pool nobody")

	_, err = runDemo(t, context.Background(), demo{nats: "nats://127.0.0.1:1", pool: "team"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach the NATS server at nats://127.0.0.1:1")
}

// jetStreamServer starts a NATS server with JetStream on a free loopback
// port, its store in a temporary directory; shut down when t ends.
func jetStreamServer(t *testing.T) *server.Server {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second), "the NATS server did not start")
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	return srv
}

// runDemo runs d into a buffer under a watchdog.
func runDemo(t *testing.T, ctx context.Context, d demo) (string, error) {
	t.Helper()
	var out bytes.Buffer
	d.out = &out
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.run(ctx) }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(30 * time.Second):
		cancel()
		<-done
		t.Fatal("the demo did not finish in 30s")
		return "", nil
	}
}

func TestDemo(t *testing.T) {
	out, err := runDemo(t, context.Background(), demo{})
	require.NoError(t, err)
	for _, want := range []string{
		"▸ prompt demo/planner rendered · 39 lines, ",
		"  ✎ The billing module has two files; I will review each one as a step of a plan.\n",
		"▸ model turn 2\n  ✎ Dispatching one reviewer per step; they work in parallel.\n  ↳ calls dispatch_subagent, dispatch_subagent · scripted · ",
		"  ⇠ artifact notes/invoice.md copied back · 119 bytes\n",
		"  ⇠ artifact notes/tax.md copied back · 112 bytes\n",
		"  ⚑ plan step S002 marked done\n",
		"  S001 Review billing/invoice.py [done]\n",
		"\nparity: ok — each of the 2 subagents (agent-1, agent-2) started with exactly the parent's state: all 9 slices shared with the parent's snapshot, none copied\n",
		"\nisolation: ok — the parent's state did not change while its 2 subagents ran (compared deeply); afterwards it gained only the 2 files they wrote, copied back: notes/invoice.md, notes/tax.md\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 2, strings.Count(out, " started · agents/reviewer · forked from s1\n"))
	assert.Equal(t, 2, strings.Count(out, " finished in "))
	assert.NotContains(t, out, "FAILED")
	assert.NotContains(t, out, "\x1b[", "no colour unless asked")
}

// The reviewers run in parallel, and the tree shows them so even when the
// scripted model answers in microseconds: they take turns, a model call
// and its tools each, whatever the machine's speed.
func TestDemoShowsTheReviewersInTurn(t *testing.T) {
	for range 5 {
		out, err := runDemo(t, context.Background(), demo{})
		require.NoError(t, err)
		var turns []string
		for _, m := range regexp.MustCompile(`(?m)^  │ (agent-\d) (model turn|  ✓|  ✎)`).FindAllStringSubmatch(out, -1) {
			if len(turns) == 0 || turns[len(turns)-1] != m[1] {
				turns = append(turns, m[1])
			}
		}
		// The first step's reviewer has 4 turns, the second's 3.
		require.Len(t, turns, 7, out)
		first, second := turns[0], turns[1]
		assert.NotEqual(t, first, second)
		assert.Equal(t, []string{first, second, first, second, first, second, first}, turns, out)
	}
}

// On a terminal, every line of the demo fits its width.
func TestDemoFitsTheTerminal(t *testing.T) {
	out, err := runDemo(t, context.Background(), demo{width: 50})
	require.NoError(t, err)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.LessOrEqual(t, columns.Width(l), 50, "%q", l)
	}
	assert.Contains(t, out, "\nparity: ok — each of the 2 subagents (agent-1,\n  agent-2) started with exactly the parent's\n  state: all 9 slices")
}

func TestDemoColor(t *testing.T) {
	out, err := runDemo(t, context.Background(), demo{color: true})
	require.NoError(t, err)
	assert.Contains(t, out, "\x1b[32m✓\x1b[0m")
}

func TestDemoJSON(t *testing.T) {
	out, err := runDemo(t, context.Background(), demo{json: true})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	types := map[string]int{}
	var checks []result
	for _, l := range lines {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &v), "every line is JSON: %s", l)
		if typ, ok := v["type"].(string); ok {
			types[typ]++
			assert.NotEmpty(t, v["session_id"], "every event line says whose it is: %s", l)
			continue
		}
		var r result
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		checks = append(checks, r)
	}
	assert.Equal(t, 2, types["subagent.Started"])
	assert.Equal(t, 2, types["subagent.Finished"])
	assert.Positive(t, types["runner.Delta"])
	assert.Equal(t, 4, types["vfs.FileWritten"], "the children's notes, and the same copied back")
	require.Len(t, checks, 2)
	assert.Equal(t, "parity", checks[0].Check)
	assert.Equal(t, "isolation", checks[1].Check)
	assert.True(t, checks[0].OK && checks[1].OK)
}

func TestDemoChecksFail(t *testing.T) {
	tests := []struct {
		name string
		demo demo
		want []string
	}{{
		name: "a child that does not start from the parent's state",
		demo: demo{tamper: func(child *session.Session) error {
			return child.Dispatch(context.Background(), vfs.FileWritten{Path: "planted.md", Content: "not the parent's", Version: 1})
		}},
		want: []string{
			"\nparity: FAILED — 2 of 2 subagents did not start from the parent's snapshot\n",
			"did not start with the parent's state; 8 of 9 slices shared (- parent's snapshot, + child):",
			`"path":"planted.md"`,
		},
	}, {
		name: "a parent that changes while its children run",
		demo: demo{tamperParent: func(parent *session.Session) {
			// Once both children are forked and set up (each is announced
			// after), the parent is written to while they run.
			var started atomic.Int32
			_, err := bus.Subscribe(parent.Bus(), "tamper", func(ctx context.Context, _ bus.Envelope, _ subagent.Started) error {
				if started.Add(1) != 2 {
					return nil
				}
				return parent.Dispatch(ctx, vfs.FileWritten{Path: "planted-agent-1.md", Content: "written into the parent", Version: 1})
			})
			require.NoError(t, err)
		}},
		want: []string{
			"\nparity: ok — ",
			"\nisolation: FAILED — the parent's state was touched by its subagents (3 problems)\n",
			"the parent changed while agent-",
			"planted-agent-",
			"afterwards the parent's files are not its own plus the files the subagents wrote:\n",
			"      unexpected: planted-agent-1.md\n",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := runDemo(t, context.Background(), tt.demo)
			require.Error(t, err)
			var ee *cli.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, cli.ExitFailed, ee.Code)
			assert.Contains(t, err.Error(), "1 check of 2 failed (what differed is above)")
			for _, want := range tt.want {
				assert.Contains(t, out, want)
			}
		})
	}
}

func TestDemoInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := runDemo(t, ctx, demo{})
	require.Error(t, err)
	var ee *cli.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, cli.ExitFailed, ee.Code)
	assert.Contains(t, err.Error(), "the demo was interrupted")
	assert.NotContains(t, out, "Checks:")
}

// cancelOn is a writer that cancels a context once what was written
// contains a mark.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	mark   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.mark) {
		c.cancel()
	}
	return n, err
}

// TestDemoInterruptedWhileSubagentsRun cancels the run once a subagent has
// started: the subagents stop with it, and no goroutine is left behind
// (TestMain checks).
func TestDemoInterruptedWhileSubagentsRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{mark: " started · agents/reviewer", cancel: cancel}
	done := make(chan error, 1)
	go func() { done <- demo{out: out, delay: 20 * time.Millisecond}.run(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the demo did not stop after the interrupt")
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the demo was interrupted")
	out.mu.Lock()
	defer out.mu.Unlock()
	assert.Contains(t, out.buf.String(), " started · agents/reviewer")
	assert.Contains(t, out.buf.String(), "context canceled")
	assert.NotContains(t, out.buf.String(), "Checks:")
}

// A pool's name becomes a subject token: one that cannot be is refused
// before a server or worker starts; the URL's credentials are never
// printed back, nor put on a worker's command line (where ps shows them).
func TestDemoRefusesABadPoolAndHidesTheURLsCredentials(t *testing.T) {
	for _, pool := range []string{"a.b", "*", ">", "a b"} {
		t.Run(pool, func(t *testing.T) {
			var out bytes.Buffer
			env := &cli.Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
			cmd := Command(env)
			cmd.SetArgs([]string{"--workers", "1", "--pool", pool})
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			err := cmd.ExecuteContext(context.Background())
			require.Error(t, err)
			assert.Equal(t, cli.ExitUsage, cli.Code(err, true), err.Error())
			assert.Contains(t, err.Error(), fmt.Sprintf("--pool %q", pool))
		})
	}

	_, err := runDemo(t, context.Background(), demo{nats: "nats://alice:s3cret@127.0.0.1:1", pool: "team"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach the NATS server at nats://alice:xxxxx@127.0.0.1:1")
	assert.NotContains(t, err.Error(), "s3cret")

	cmd, err := selfWorker("nats://alice:s3cret@127.0.0.1:1", "team")
	require.NoError(t, err)
	assert.NotContains(t, strings.Join(cmd.Args, " "), "s3cret", "the URL goes to the worker in its environment")
	assert.Contains(t, cmd.Env, "NATS_URL=nats://alice:s3cret@127.0.0.1:1")
}
