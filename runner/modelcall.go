package runner

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
)

// callModel makes one model call and records it with the assistant
// message, which it returns. A call that failed after part of the answer
// arrived (cancelled mid-stream, say) returns and records that part's text
// with the error; its unfinished tool calls are dropped.
func (r *run) callModel() (model.Message, error) {
	// One Request serves every turn: a model must not keep it past the
	// call (model.Request), and the run is on the heap already.
	estimate := r.nextSize()
	req := &r.modelReq
	*req = model.Request{Messages: r.request(), Tools: r.specs, CacheKey: r.cacheKey, Output: r.outputSpec}
	reqBytes := r.cx.sentBytes
	if out := r.rendered.Output; out != nil && req.Output == nil {
		r.outputSpec = &model.OutputSpec{Name: outputName(r.rendered), Schema: out.Schema(), Strict: true}
		req.Output = r.outputSpec
	}
	r.resp.Turns++
	started := r.clock()
	reply, err := r.generate(req)
	rec := ModelCalled{Evaluation: r.eval, NS: r.rendered.NS, Key: r.rendered.Key, Model: r.modelID, Route: r.req.ModelName,
		Server: r.server, Turn: r.resp.Turns, Duration: r.clock().Sub(started)}
	if reply == nil && err == nil {
		err = errors.New("runner: the model returned neither a response nor an error")
	}
	var msg model.Message
	if reply != nil {
		r.resp.Usage = r.resp.Usage.Add(reply.Usage)
		r.scope.charge(reply.Usage)
		rec.Usage, rec.FinishReason = reply.Usage, reply.FinishReason
		rec.ResponseModel, rec.ResponseID = reply.Model, reply.ID
		msg = reply.Message
		msg.Role = model.RoleAssistant
		if err != nil {
			msg.ToolCalls = nil
		}
	}
	if slices.ContainsFunc(msg.ToolCalls, func(c model.ToolCall) bool { return c.ID == "" }) {
		// Some servers send calls without ids; the answers need one, and
		// the next request would be refused.
		msg.ToolCalls = slices.Clone(msg.ToolCalls)
		model.FillToolCallIDs(req, msg.ToolCalls)
	}
	r.oversized = nil
	if slices.ContainsFunc(msg.ToolCalls, func(c model.ToolCall) bool { return len(c.Arguments) > maxArgumentBytes }) {
		// Arguments over the bound are one failed call each; they are not
		// kept, so the conversation the model is sent next stays small.
		msg.ToolCalls = slices.Clone(msg.ToolCalls)
		r.oversized = map[string]int{}
		for i, c := range msg.ToolCalls {
			if len(c.Arguments) > maxArgumentBytes {
				r.oversized[c.ID] = len(c.Arguments)
				msg.ToolCalls[i].Arguments = fmt.Sprintf(`{"omitted":"%d bytes of arguments, more than a call may have"}`, len(c.Arguments))
			}
		}
	}
	if err != nil {
		rec.Error, rec.ErrorType = err.Error(), model.ErrorKind(err)
		if msg.Content == "" {
			if rerr := r.commit(rec); rerr != nil {
				return model.Message{}, errors.Join(err, rerr)
			}
			return model.Message{}, err
		}
	}
	answer := ConversationMessage{Evaluation: r.eval, Message: msg}
	var u model.Usage
	if reply != nil {
		u = reply.Usage
	}
	if u.OutputTokens == 0 {
		u.OutputTokens = r.cx.est.message(msg)
	}
	fill := r.noteUsage(u, len(r.resp.Messages)+1, reqBytes, estimate)
	if err == nil {
		r.cx.retried = false
	}
	if err == nil && len(msg.ToolCalls) == 0 {
		// The final answer: recorded with PromptExecuted, in one dispatch.
		r.final = []any{answer, fill, rec, nil}
		return msg, nil
	}
	if rerr := r.commit(answer, fill, rec); rerr != nil {
		if err == nil {
			return msg, &recordError{rerr}
		}
		return msg, errors.Join(err, rerr)
	}
	return msg, err
}

// describeModel notes what the model says it calls, for the records of
// its calls: once an evaluation, not once a call.
func (r *run) describeModel() {
	d := model.Describe(r.req.Model)
	r.modelID = d.ID
	if d.ServerAddress != "" {
		r.server = d.ServerAddress
		if d.ServerPort > 0 {
			r.server = net.JoinHostPort(d.ServerAddress, strconv.Itoa(d.ServerPort))
		}
	}
}

// generate calls the model, turning a panic into an error. It streams
// when someone observes the evaluation's Delta events.
func (r *run) generate(req *model.Request) (resp *model.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, &panicError{fmt.Sprintf("runner: the model panicked: %v", p)}
		}
	}()
	if bus.Observed[Delta](r.req.Session.Bus()) {
		return model.Stream(r.ctx, r.req.Model, req, r.onDelta)
	}
	return r.req.Model.Generate(r.ctx, req)
}

// publishDelta publishes a piece of the answer being streamed. It is
// r.onDelta, bound once per evaluation.
func (r *run) publishDelta(d model.Delta) error {
	r.req.Session.Bus().Publish(r.ctx, bus.Envelope{Payload: Delta{SessionID: r.req.Session.ID(), Evaluation: r.eval, Turn: r.resp.Turns, Delta: d}})
	return nil
}

func outputName(rd *prompt.Rendered) string {
	name := make([]byte, 0, len(rd.NS)+len(rd.Key)+1)
	for _, c := range []byte(rd.NS + "_" + rd.Key) {
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' {
			name = append(name, c)
		} else {
			name = append(name, '_')
		}
	}
	return string(name)
}
