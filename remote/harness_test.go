package remote_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// Environment of a worker process: the test binary run again.
const (
	envWorkerURL   = "OFFSHOOT_TEST_WORKER_URL"
	envWorkerPool  = "OFFSHOOT_TEST_WORKER_POOL"
	envBarrier     = "OFFSHOOT_TEST_BARRIER" // block the first model call of step S001's reviewer
	envFingerprint = "OFFSHOOT_TEST_VARIANT" // build the setup with an extra tool: another program
	envSerial      = "OFFSHOOT_TEST_SERIAL"  // run one child at a time
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorkerURL); url != "" {
		os.Exit(workerMain(url, os.Getenv(envWorkerPool)))
	}
	os.Exit(m.Run())
}

// workerMain serves the pool until its standard input closes.
func workerMain(url, pool string) int {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	setup, err := storySetup(os.Getenv(envFingerprint) != "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	barrier := os.Getenv(envBarrier) != ""
	setup.Model = func(name string) (model.Model, error) {
		script := billing.Script()
		first := true
		return model.Func(func(ctx context.Context, req *model.Request) (*model.Response, error) {
			if barrier && first && slices.ContainsFunc(req.Messages, func(m model.Message) bool { return strings.Contains(m.Content, "step S001 of the plan") }) {
				first = false
				sub, err := nc.SubscribeSync("offshoot.test.release")
				if err != nil {
					return nil, err
				}
				defer func() { _ = sub.Unsubscribe() }()
				if err := nc.Publish("offshoot.test.reached", []byte(fmt.Sprint(os.Getpid()))); err != nil {
					return nil, err
				}
				if _, err := sub.NextMsgWithContext(ctx); err != nil {
					return nil, err
				}
			}
			if name == "echo" {
				return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop, Usage: model.Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2}}, nil
			}
			return script.Generate(ctx, req)
		}), nil
	}
	setup.AckWait = 2 * time.Second
	if os.Getenv(envSerial) != "" {
		setup.Concurrency = 1
	}
	if err := remote.Serve(ctx, js, pool, setup); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// storySetup is what the billing story registers, the same in the test
// (where the planner runs) and in its workers. variant adds a tool: a
// build of another program.
func storySetup(variant bool) (remote.Setup, error) {
	engine := subagent.New(subagent.Options{})
	reg, err := billing.Prompts(engine, promptsubagent.Options{})
	if err != nil {
		return remote.Setup{}, err
	}
	planner, err := reg.Lookup(billing.PlannerNS, billing.PlannerKey)
	if err != nil {
		return remote.Setup{}, err
	}
	r, err := planner.Render()
	if err != nil {
		return remote.Setup{}, err
	}
	ts := r.Tools
	if variant {
		extra, err := prompt.New("extra", "extra", prompt.Markdown[prompt.NoParams]("Extra", "An extra prompt."))
		if err != nil {
			return remote.Setup{}, err
		}
		if err := reg.Register(extra); err != nil {
			return remote.Setup{}, err
		}
	}
	return remote.Setup{Prompts: reg, Tools: ts, AckWait: 2 * time.Second, MaxDeliver: 3}, nil
}

// natsServer starts an embedded JetStream server on a random loopback
// port, storing in dir.
func natsServer(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		t.Fatal("the embedded NATS server did not start")
	}
	return s
}

func connect(t testing.TB, s *server.Server) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	require.NoError(t, err)
	// Closing the connection ends the publisher's goroutines too (nc.Close
	// only: CleanupPublisher before it can leave one of them blocked).
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return nc, js
}

// workerProc is a worker process: the test binary run again.
type workerProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	log   *strings.Builder
	mu    sync.Mutex
}

var workerCount atomic.Int64

// startWorkers starts n worker processes serving pool; they stop when
// the test ends.
func startWorkers(t testing.TB, url, pool string, n int, env ...string) []*workerProc {
	t.Helper()
	var out []*workerProc
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envWorkerURL+"="+url, envWorkerPool+"="+pool)
		cmd.Env = append(cmd.Env, env...)
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		workerCount.Add(1)
		w := &workerProc{cmd: cmd, stdin: stdin, done: make(chan struct{}), log: &strings.Builder{}}
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				w.mu.Lock()
				w.log.WriteString(sc.Text() + "\n")
				w.mu.Unlock()
			}
			_ = cmd.Wait()
			close(w.done)
		}()
		out = append(out, w)
		t.Cleanup(func() { w.stop(t) })
	}
	return out
}

// stop closes the worker's standard input and waits for it to exit.
func (w *workerProc) stop(t testing.TB) {
	_ = w.stdin.Close()
	select {
	case <-w.done:
	case <-time.After(60 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.done
		t.Errorf("a worker did not stop within a minute of its input closing; its log:\n%s", w.logText())
	}
}

func (w *workerProc) logText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}
