package compare

import (
	"context"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// offshoot with streaming on: the fake is a model.Streamer, and an observer
// subscribed to runner.Delta on the bus the sessions share reads every
// piece, as a UI would. While someone observes the deltas the runner calls
// the model's Stream and tells each piece to the bus (bus.Publish); the
// session still records the whole conversation.

// offshootStreamer is the streaming fake: for the script's tool turns it
// streams the tool call as one piece, after them the final answer in
// finalChunks pieces, all prepared once; then it returns one shallow copy
// of the prepared response, as offshootModel does.
type offshootStreamer struct {
	sc                      *script
	call, final             *model.Response
	callPieces, finalPieces []model.Delta
}

func newOffshootStreamer(sc *script, call, final *model.Response) *offshootStreamer {
	m := &offshootStreamer{sc: sc, call: call, final: final}
	for i, c := range call.Message.ToolCalls {
		m.callPieces = append(m.callPieces, model.Delta{ToolCall: &model.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: c.Arguments}})
	}
	for _, t := range streamChunks(final.Message.Content, finalChunks) {
		m.finalPieces = append(m.finalPieces, model.Delta{Text: t})
	}
	return m
}

func (m *offshootStreamer) next() (*model.Response, []model.Delta) {
	if m.sc.toolTurn() {
		return m.call, m.callPieces
	}
	return m.final, m.finalPieces
}

func (m *offshootStreamer) Generate(context.Context, *model.Request) (*model.Response, error) {
	resp, _ := m.next()
	r := *resp
	return &r, nil
}

func (m *offshootStreamer) Stream(ctx context.Context, _ *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	resp, pieces := m.next()
	for i, d := range pieces {
		if err := ctx.Err(); err != nil {
			return partial(pieces[:i]), err
		}
		if err := fn(d); err != nil {
			return partial(pieces[:i]), err
		}
	}
	r := *resp
	return &r, nil
}

// partial is what a stream cut short returns: the text received, no
// finish reason.
func partial(received []model.Delta) *model.Response {
	var b strings.Builder
	for _, d := range received {
		b.WriteString(d.Text)
	}
	return &model.Response{Message: model.AssistantMessage(b.String())}
}

func offshootStreamLoop(tb testing.TB, k int) *rig {
	r := &rig{}
	p := must(prompt.New("bench", "agent", prompt.Markdown[prompt.NoParams]("Task", parentPrompt, prompt.WithTools(offshootEcho(tb, r)))))(tb)
	sc := &script{calls: int64(k)}
	m := newOffshootStreamer(sc, offshootResponse(model.ToolCall{ID: "c", Name: echoName, Arguments: echoArgs}), offshootResponse())
	// One bus for every run's session, with the UI subscribed once, as an
	// application holds one bus and its display for the sessions it runs.
	b := bus.New()
	stop := must(bus.Subscribe(b, "ui", func(_ context.Context, _ bus.Envelope, d runner.Delta) error {
		r.deltas.Add(1)
		return nil
	}))(tb)
	tb.Cleanup(stop)
	r.run = func(ctx context.Context) (string, error) {
		sc.reset()
		s, err := session.New(session.WithBus(b))
		if err != nil {
			return "", err
		}
		defer s.Close()
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: userMessage, MaxTurns: k + 1})
		if err != nil {
			return "", err
		}
		return resp.Text, nil
	}
	return r
}
