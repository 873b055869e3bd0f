package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/nats-io/nats.go"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// A call a child's tool ran on its worker, told to the parent when the
// parent has an AfterTool (runner.Request.AfterTool: its PostToolUse
// hooks), on the job's after-tool subject; the parent answers with what
// AfterTool says of it, which the worker's runner adds to the result the
// child's model reads.
type afterToolRequest struct {
	Call model.ToolCall `json:"call"`
	// Result is the text of the call's result, cut to fit the bound of a
	// request (saying so).
	Result string `json:"result"`
}

type afterToolReply struct {
	Note string `json:"note,omitempty"`
}

// afterToolMessage is the request that tells the parent of call and its
// result, within maxApprovalBytes: a longer result is cut, saying so; a
// call too big to fit even so is not told (an error).
func afterToolMessage(call model.ToolCall, result string) ([]byte, error) {
	return fitted(maxApprovalBytes, result, func(text string) any { return afterToolRequest{Call: call, Result: text} })
}

// fitted returns the JSON of message(text), text cut as little as it
// takes, saying so, for it to be at most room bytes; an error when it
// does not fit even without text.
func fitted(room int, text string, message func(string) any) ([]byte, error) {
	data, err := json.Marshal(message(text))
	if err != nil || len(data) <= room {
		return data, err
	}
	base, err := json.Marshal(message(""))
	if err != nil {
		return nil, err
	}
	budget := room - len(base) - 2*len(cutNote(len(text), len(text))) // the note may be escaped
	if budget <= 0 {
		return nil, fmt.Errorf("the message is %d bytes without its text, over the %d it may have", len(base), room)
	}
	for n := len(text); len(data) > room; {
		// Keep the share of the text that fits, as it was sent: bytes a
		// message escapes take more room than others.
		next := int(int64(n) * int64(budget) / int64(len(data)-len(base)))
		n = max(0, min(next, n-1))
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		if data, err = json.Marshal(message(text[:n] + cutNote(n, len(text)))); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// cutNote says that only the first kept of total bytes are given.
func cutNote(kept, total int) string {
	return fmt.Sprintf("\n[cut: the first %d bytes of %d]", kept, total)
}

// answerAfterTool answers the job's after-tool requests with what after,
// the parent's AfterTool, says of each call (a panic in it says nothing,
// and is logged to logger, as the runner does); stop ends it. A request
// without the MAC of the job's worker is dropped (rejected), and an
// answer carries the MAC of the request it answers, of a kind of its
// own, so that it cannot answer another request, nor pass for an
// approval.
func (x *Executor) answerAfterTool(ctx context.Context, j *job, w *waiter, inv *tools.Invocation, logger *slog.Logger,
	after func(context.Context, *tools.Invocation, model.ToolCall, string) string) (stop func(), err error) {
	sub, err := x.nc.Subscribe(j.AfterTool, func(m *nats.Msg) {
		if !authentic(m.Header, j.Secret, macAfterAsk, j.key(), m.Data) {
			x.reject(j, w, "an after-tool request")
			return
		}
		var rep afterToolReply
		var a afterToolRequest
		if len(m.Data) <= maxApprovalBytes && json.Unmarshal(m.Data, &a) == nil {
			c := *inv
			c.CallID = a.Call.ID
			rep.Note = strings.TrimSpace(tellSafely(ctx, after, &c, a.Call, a.Result, logger))
		}
		data, err := fitted(replyRoom(x.nc), rep.Note, func(text string) any { return afterToolReply{Note: text} })
		if err != nil {
			data = []byte("{}")
		}
		r := &nats.Msg{Subject: m.Reply, Data: data, Header: nats.Header{}}
		sign(r.Header, j.Secret, macAfterNote, approvalKey(j.key(), m.Data), data)
		_ = m.RespondMsg(r)
	})
	if err != nil {
		return nil, fmt.Errorf("answering the subagent's after-tool requests: %w", err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

func tellSafely(ctx context.Context, after func(context.Context, *tools.Invocation, model.ToolCall, string) string,
	inv *tools.Invocation, call model.ToolCall, result string, logger *slog.Logger) (note string) {
	defer func() {
		if p := recover(); p != nil { // a broken AfterTool adds nothing
			logger.Warn("runner: AfterTool panicked; the result goes as it is", "tool", call.Name, "panic", fmt.Sprint(p))
			note = ""
		}
	}()
	return after(ctx, inv, call, result)
}

// teller is a worker's AfterTool for a child whose parent has one: it
// tells the parent of the call on the job's after-tool subject, waits
// for its answer as long as the call's context allows, and returns the
// parent's note. A parent that cannot be told, or an answer without the
// parent's MAC, adds nothing (an after-hook cannot deny): the result goes
// as it is, and logger says why.
func teller(nc *nats.Conn, j *job, logger *slog.Logger) func(context.Context, *tools.Invocation, model.ToolCall, string) string {
	warn := func(call model.ToolCall, why string, err error) string {
		args := []any{"job", j.ID, "tool", call.Name}
		if err != nil {
			args = append(args, "error", err)
		}
		logger.Warn("remote: "+why+"; the result goes as it is", args...)
		return ""
	}
	return func(ctx context.Context, _ *tools.Invocation, call model.ToolCall, result string) string {
		data, err := afterToolMessage(call, result)
		if err != nil {
			return warn(call, "the delegating agent's PostToolUse hooks could not be told of the call", err)
		}
		req := &nats.Msg{Subject: j.AfterTool, Data: data, Header: nats.Header{}}
		sign(req.Header, j.Secret, macAfterAsk, j.key(), data)
		m, err := nc.RequestMsgWithContext(ctx, req)
		if err != nil {
			return warn(call, "the delegating agent's PostToolUse hooks could not be told of the call", err)
		}
		if !authentic(m.Header, j.Secret, macAfterNote, approvalKey(j.key(), data), m.Data) {
			return warn(call, "an answer to an after-tool request did not come from the delegating agent (its MAC did not match)", nil)
		}
		var rep afterToolReply
		if len(m.Data) > maxApprovalBytes || json.Unmarshal(m.Data, &rep) != nil {
			return warn(call, "the delegating agent's answer to an after-tool request was unreadable", errors.New("not an answer"))
		}
		return rep.Note
	}
}
