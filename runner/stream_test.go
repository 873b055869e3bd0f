package runner_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// deltas collects the Delta events published on b.
type deltas struct {
	mu  sync.Mutex
	got []runner.Delta
}

func watch(t *testing.T, b *bus.Bus) *deltas {
	d := &deltas{}
	stop, err := bus.Subscribe(b, "deltas", func(_ context.Context, env bus.Envelope, e runner.Delta) error {
		assert.Empty(t, env.SessionID, "observer-only: addressed to no session")
		d.mu.Lock()
		d.got = append(d.got, e)
		d.mu.Unlock()
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(stop)
	return d
}

func (d *deltas) text(turn int) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var b strings.Builder
	for _, e := range d.got {
		if e.Turn == turn {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func TestAnswersStreamAsObserverOnlyEvents(t *testing.T) {
	s := newSession(t)
	d := watch(t, s.Bus())
	m := scripted.New(scripted.ToolCall("echo", `{"text":"hello there"}`), scripted.Text("all done, thank you"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)

	assert.Equal(t, "all done, thank you", d.text(2), "the pieces make the answer")
	var args strings.Builder
	var name string
	for _, e := range d.got {
		assert.Equal(t, s.ID(), e.SessionID)
		assert.Equal(t, resp.Evaluation, e.Evaluation)
		if e.ToolCall != nil {
			assert.Equal(t, 1, e.Turn)
			args.WriteString(e.ToolCall.Arguments)
			if e.ToolCall.Name != "" {
				name = e.ToolCall.Name
			}
		}
	}
	assert.Equal(t, "echo", name)
	assert.JSONEq(t, `{"text":"hello there"}`, args.String())
	assert.Greater(t, len(d.got), 3, "word by word, not whole")
	assert.Zero(t, session.Len[runner.Delta](s), "deltas are not recorded")
	conv := runner.Conversation(s.Snapshot(), resp.Evaluation)
	assert.Equal(t, model.AssistantMessage("all done, thank you"), conv[len(conv)-1], "the whole answer is")
}

// spy is a streaming model that says whether it was asked to stream.
type spy struct {
	*scripted.Model
	streamed, generated int
}

func (s *spy) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	s.generated++
	return s.Model.Generate(ctx, req)
}

func (s *spy) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	s.streamed++
	return s.Model.Stream(ctx, req, fn)
}

func TestNoObserverNoStreaming(t *testing.T) {
	m := &spy{Model: scripted.New(scripted.Text("a"), scripted.Text("b"))}
	_, err := runner.Evaluate(ctx, request(newPrompt(t), newSession(t), m))
	require.NoError(t, err)
	assert.Equal(t, 1, m.generated)
	assert.Zero(t, m.streamed)

	s := newSession(t)
	watch(t, s.Bus())
	_, err = runner.Evaluate(ctx, request(newPrompt(t), s, m))
	require.NoError(t, err)
	assert.Equal(t, 1, m.streamed, "an observer turns streaming on")
}

// Cancelling while the answer streams returns promptly, and what arrived is
// kept: in the response and in the session's conversation.
func TestCancelMidStreamKeepsThePartialText(t *testing.T) {
	s := newSession(t)
	long := strings.Repeat("word ", 200)
	m := scripted.New(scripted.Text(long))
	m.SetChunking(scripted.Chunking{Delay: 20 * time.Millisecond})
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	stop, err := bus.Subscribe(s.Bus(), "canceller", func(_ context.Context, _ bus.Envelope, e runner.Delta) error {
		if strings.Count(e.Text, "word") > 0 && len(e.Text) > 0 {
			once.Do(func() { time.AfterFunc(50*time.Millisecond, cancel) })
		}
		return nil
	})
	require.NoError(t, err)
	defer stop()

	start := time.Now()
	var resp *runner.Response
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err = runner.Evaluate(cctx, request(newPrompt(t), s, m))
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Evaluate did not return after cancel")
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 2*time.Second, "long before the whole answer (4 s) would have streamed")
	require.NotNil(t, resp)
	assert.True(t, strings.HasPrefix(long, resp.Text), "a prefix of the answer: %q", resp.Text)
	assert.NotEmpty(t, resp.Text)
	assert.Less(t, len(resp.Text), len(long))
	conv := runner.Conversation(s.Snapshot(), resp.Evaluation)
	assert.Equal(t, model.AssistantMessage(resp.Text), conv[len(conv)-1], "the partial text is recorded")
	rec, _ := session.Latest[runner.ModelCalled](s)
	assert.Contains(t, rec.Error, "context canceled")
}
