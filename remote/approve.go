package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// The approval of a child's tool call, asked by its worker of the parent
// (request and reply on the job's approval subject): the parent's
// approver — the program's, or the engine's refusal of a tool outside a
// forked-context agent's list — decides where it was given.
type approval struct {
	Call model.ToolCall `json:"call"`
}

// approvalReply is the parent's answer: a denial, or the arguments the
// call runs with instead of the model's (the parent's approver rewrote
// them: runner.Request.Approve), or neither (the call runs as it is).
type approvalReply struct {
	Denied    string `json:"denied,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// rewritten is the parent's approval of a call with other arguments, as
// the worker's runner reads it (runner.Request.Approve): it checks them
// as it checks the model's.
type rewritten json.RawMessage

func (r rewritten) Error() string {
	return "the delegating agent's approver changed the call's arguments"
}

// Arguments returns the arguments the call runs with.
func (r rewritten) Arguments() json.RawMessage { return json.RawMessage(r) }

// maxApprovalBytes bounds an approval request the parent reads.
const maxApprovalBytes = 1 << 20

// answerApprovals answers the job's approval requests with approve, the
// child's invocation as the parent knows it; stop ends it. A request
// without the MAC of the job's worker is dropped (rejected), and an
// answer carries the MAC of the request it answers, so that it cannot
// answer another.
func (x *Executor) answerApprovals(ctx context.Context, j *job, w *waiter, inv *tools.Invocation, approve func(context.Context, *tools.Invocation, model.ToolCall) error) (stop func(), err error) {
	sub, err := x.nc.Subscribe(j.Approve, func(m *nats.Msg) {
		if !authentic(m.Header, j.Secret, macAsk, j.key(), m.Data) {
			x.reject(j, w, "an approval request")
			return
		}
		var rep approvalReply
		var a approval
		switch {
		case len(m.Data) > maxApprovalBytes:
			rep.Denied = "the approval request was too big"
		case json.Unmarshal(m.Data, &a) != nil:
			rep.Denied = "the approval request was not one"
		default:
			c := *inv
			c.CallID = a.Call.ID
			rep = approvalOf(askSafely(ctx, approve, &c, a.Call))
		}
		data, _ := json.Marshal(rep)
		if room := replyRoom(x.nc); len(data) > room {
			data, _ = json.Marshal(approvalReply{Denied: fmt.Sprintf(
				"the approver rewrote the call's arguments to %d bytes, more than the %d an approval carries to the worker", len(rep.Arguments), room)})
		}
		r := &nats.Msg{Subject: m.Reply, Data: data, Header: nats.Header{}}
		sign(r.Header, j.Secret, macApproval, approvalKey(j.key(), m.Data), data)
		_ = m.RespondMsg(r)
	})
	if err != nil {
		return nil, fmt.Errorf("answering the subagent's approval requests: %w", err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

// approvalOf is the reply that says what the approver's err says: no
// error lets the call run; an error with the method Arguments lets it run
// with those arguments (trimmed, empty for the model's); any other
// denies it.
func approvalOf(err error) approvalReply {
	var rw interface{ Arguments() json.RawMessage }
	switch {
	case err == nil:
		return approvalReply{}
	case errors.As(err, &rw):
		return approvalReply{Arguments: string(bytes.TrimSpace(rw.Arguments()))}
	}
	return approvalReply{Denied: err.Error()}
}

// replyRoom is the most bytes the parent's answer to a worker's request
// may have: an approval request's bound, or less when the server's
// maximum payload is less (room left for the headers).
func replyRoom(nc *nats.Conn) int {
	room := maxApprovalBytes
	if p := int(nc.MaxPayload()); p > 0 && p-1024 < room {
		room = p - 1024
	}
	return room
}

func askSafely(ctx context.Context, approve func(context.Context, *tools.Invocation, model.ToolCall) error, inv *tools.Invocation, call model.ToolCall) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the approver failed: %v", p)
		}
	}()
	return approve(ctx, inv, call)
}

// approvalKey binds an approval's MAC to the request it answers.
func approvalKey(key string, request []byte) string { return key + "." + hashOf(request) }

// asker is a worker's approver of a child's tool calls: it asks the
// parent on the job's approval subject and waits for the answer as long
// as the call's context allows. A parent that cannot be asked, or an
// answer without the parent's MAC, denies. An answer that rewrites the
// call's arguments is an error with the method Arguments, as the parent's
// approver's was: the worker's runner runs the call with them, checked
// as it checks the model's.
func asker(nc *nats.Conn, j *job) func(context.Context, *tools.Invocation, model.ToolCall) error {
	return func(ctx context.Context, _ *tools.Invocation, call model.ToolCall) error {
		data, err := json.Marshal(approval{Call: call})
		if err != nil {
			return err
		}
		req := &nats.Msg{Subject: j.Approve, Data: data, Header: nats.Header{}}
		sign(req.Header, j.Secret, macAsk, j.key(), data)
		m, err := nc.RequestMsgWithContext(ctx, req)
		if err != nil {
			return fmt.Errorf("the delegating agent could not be asked for approval (%v)", err)
		}
		if !authentic(m.Header, j.Secret, macApproval, approvalKey(j.key(), data), m.Data) {
			return errors.New("the answer to the approval request did not come from the delegating agent (its MAC did not match), so the call is denied")
		}
		var rep approvalReply
		if len(m.Data) > maxApprovalBytes || json.Unmarshal(m.Data, &rep) != nil {
			return errors.New("the delegating agent's approval was unreadable")
		}
		switch {
		case rep.Denied != "":
			return errors.New(rep.Denied)
		case rep.Arguments != "":
			return rewritten(rep.Arguments)
		}
		return nil
	}
}
