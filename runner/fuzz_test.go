package runner_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// decodeReplies reads a byte stream as at most 6 assistant replies:
// [calls][len][content…], then per call [len][id…][name][len][name…]
// [len][arguments…]. A name byte that is even picks a known tool (by half
// its value), an odd one takes the raw name that follows. Missing bytes
// end the replies.
func decodeReplies(data []byte, known []string) []model.Message {
	read := func() (string, bool) {
		if len(data) == 0 || len(data) < 1+int(data[0]) {
			return "", false
		}
		n := int(data[0])
		s := string(data[1 : 1+n])
		data = data[1+n:]
		return s, true
	}
	var replies []model.Message
	for len(replies) < 6 && len(data) > 0 {
		calls := int(data[0] % 5)
		data = data[1:]
		content, ok := read()
		if !ok {
			break
		}
		msg := model.Message{Role: model.RoleAssistant, Content: content}
		for range calls {
			id, ok := read()
			if !ok || len(data) == 0 {
				break
			}
			sel := data[0]
			data = data[1:]
			raw, ok := read()
			if !ok {
				break
			}
			name := raw
			if sel%2 == 0 {
				name = known[int(sel/2)%len(known)]
			}
			args, ok := read()
			if !ok {
				break
			}
			msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: id, Name: name, Arguments: args})
		}
		replies = append(replies, msg)
	}
	return replies
}

// encodeReplies is the inverse of decodeReplies for known names, for seeds.
func encodeReplies(replies ...model.Message) []byte {
	var out []byte
	str := func(s string) { out = append(out, byte(len(s))); out = append(out, s...) }
	for _, m := range replies {
		out = append(out, byte(len(m.ToolCalls)))
		str(m.Content)
		for _, c := range m.ToolCalls {
			str(c.ID)
			out = append(out, 1) // a raw name
			str(c.Name)
			str(c.Arguments)
		}
	}
	return out
}

func call(id, name, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: name, Arguments: args}
}

// FuzzModelReplies runs whole evaluations against a model whose replies —
// text, tool calls with arbitrary ids, names and arguments — come from
// the fuzzer, over typed, VFS and misbehaving hand-written tools. The run
// must end with a result or an *EvaluationError, within its deadline, and
// every call must be answered in order and recorded.
func FuzzModelReplies(f *testing.F) {
	for _, seed := range [][]byte{
		encodeReplies(model.Message{Content: "done"}),
		encodeReplies(model.Message{ToolCalls: []model.ToolCall{call("c1", "echo", `{"text":"hi"}`)}}, model.Message{Content: "ok"}),
		encodeReplies(model.Message{ToolCalls: []model.ToolCall{call("a", "write_file", `{"file_path":"a.md","content":"x"}`), call("b", "read_file", `{"file_path":"a.md"}`), call("c", "grep", `{"pattern":"x"}`)}}),
		encodeReplies(model.Message{ToolCalls: []model.ToolCall{call("a", "boom", `{}`), call("b", "vanish", `{}`), call("c", "ls", `{}`), call("", "nil_event", `{}`)}}),
		encodeReplies(model.Message{ToolCalls: []model.ToolCall{call("x", "nope", `{`), call("x", "echo", `[]`), call("y", "echo", `{"text":1}`)}}),
		encodeReplies(model.Message{Content: "thinking", ToolCalls: []model.ToolCall{call("1", "glob", `{"pattern":"**/a/**/a/**/b"}`), call("2", "grep", `{"pattern":"(.*a){400}z"}`)}}),
	} {
		f.Add(seed)
	}
	vfsTools, err := vfs.Tools(vfs.Options{})
	if err != nil {
		f.Fatal(err)
	}
	list := append(vfsTools.Tools(),
		echoTool(f, tools.ConcurrentSafe()),
		handmade{"boom", true, func() tools.Outcome { panic("boom") }},
		handmade{"vanish", true, func() tools.Outcome { runtime.Goexit(); return tools.Outcome{} }},
		handmade{"nil_event", false, func() tools.Outcome { return tools.Outcome{Text: "ok", Success: true, Events: []any{nil}} }},
	)
	p := newPrompt(f, list...)
	var known []string
	for _, t := range list {
		known = append(known, t.Spec().Name)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		replies := decodeReplies(data, known)
		s, err := session.New()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		turn := 0
		m := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			if turn < len(replies) {
				turn++
				return &model.Response{Message: replies[turn-1]}, nil
			}
			return &model.Response{Message: model.AssistantMessage("the end")}, nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		type result struct {
			resp *runner.Response
			err  error
		}
		done := make(chan result, 1)
		go func() {
			resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Params: []any{Task{Goal: "fuzz"}}, Session: s, Model: m, UserMessage: "go", MaxTurns: 5})
			done <- result{resp, err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the evaluation did not end within 8 s of its deadline")
		}
		if r.err != nil {
			var ee *runner.EvaluationError
			if !errors.As(r.err, &ee) {
				t.Fatalf("not an *EvaluationError: %T %v", r.err, r.err)
			}
		}
		if r.resp == nil {
			t.Fatalf("no response (error %v)", r.err)
		}
		checkAnswered(t, r.resp, s, r.err != nil)
	})
}

// checkAnswered checks that each assistant message's calls are answered
// by the tool messages that follow it, one each, in order, and that every
// answered call is counted and recorded. Only a run that failed may leave
// the calls of its last turn answered in part (a deadline stops it between
// runs of calls).
func checkAnswered(t *testing.T, resp *runner.Response, s *session.Session, failed bool) {
	t.Helper()
	msgs := resp.Messages
	answered := 0
	for i, msg := range msgs {
		if msg.Role != model.RoleAssistant || len(msg.ToolCalls) == 0 {
			continue
		}
		j := 0
		for i+1+j < len(msgs) && msgs[i+1+j].Role == model.RoleTool {
			m, c := msgs[i+1+j], msg.ToolCalls[min(j, len(msg.ToolCalls)-1)]
			if j >= len(msg.ToolCalls) || m.ToolCallID != c.ID || m.Content == "" {
				t.Fatalf("call %d of %d (%q) answered by %+v", j, len(msg.ToolCalls), c.ID, m)
			}
			j++
		}
		if j < len(msg.ToolCalls) && (!failed || i+1+j != len(msgs)) {
			t.Fatalf("%d of %d calls answered (failed run: %v)", j, len(msg.ToolCalls), failed)
		}
		answered += j
	}
	if answered != resp.ToolCalls {
		t.Fatalf("%d calls answered, %d counted", answered, resp.ToolCalls)
	}
	if n := session.Len[runner.ToolInvoked](s); n != answered {
		t.Fatalf("%d calls answered, %d recorded", answered, n)
	}
}
