package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// statusWaiting is PromptExecuted.Status of an evaluation parked on a
// question (see Wait).
const statusWaiting = "waiting"

// Waiting is a question a tool call put to someone outside the
// evaluation, who is not there to answer now: as an error (made by Wait)
// it parks the evaluation, and as a record it says what the session waits
// for.
//
// A tool's handler, or Request.Approve, returns Wait(question) instead of
// a result. The runner then ends the evaluation: it records the Waiting,
// with the call's id, and the evaluation's PromptExecuted, of status
// "waiting", in one dispatch, and Evaluate returns an *EvaluationError
// that unwraps to the *Waiting (errors.As). The process may exit then.
// Later, an evaluation that continues it (Request.Continue, the
// Evaluation) with the answer (Request.Answer) records the answer as the
// call's result — the conversation is what it would have been, had the
// answer come at once — runs the calls of that turn that had not run,
// and goes on.
//
// The session keeps them in their slice, with no reducer (the slice is
// made at the first): it waits while the latest
// (session.Latest[runner.Waiting]) is not Answered, across a restart from its store and in
// its forks. A turn's other calls before the waiting one are recorded as
// usual; those after it run when the answer comes; of calls run at once
// (ConcurrentSafe tools), all but the waiting one are recorded, and a
// second one that waits is told to ask again later.
type Waiting struct {
	// Evaluation is the id of the parked evaluation, CallID the id of the
	// tool call that waits, and Tool its tool's name.
	Evaluation string `json:"evaluation"`
	CallID     string `json:"call_id"`
	Tool       string `json:"tool"`
	// Question is what the call asks, as the person will read it.
	Question string `json:"question"`
	// Approval says that Request.Approve asked to wait: when the answer
	// comes, the call is approved again, Approve reading the answer
	// (AnswerOf), and runs if it is approved.
	Approval bool `json:"approval,omitempty"`
	// Answered marks the record made when the answer came.
	Answered bool `json:"answered,omitempty"`
}

// Wait returns the error a tool call returns to park its evaluation on
// question until someone answers it (see Waiting). Return it from a
// tool's handler (tools.New's, or in a hand-written tool's Outcome.Err)
// or from Request.Approve.
func Wait(question string) error { return &Waiting{Question: question} }

// Error says what the evaluation waits for.
func (w *Waiting) Error() string {
	if w.CallID == "" {
		return "runner: waiting for an answer: " + w.Question
	}
	return fmt.Sprintf("runner: evaluation %s waits for an answer to its %s call %s: %s", w.Evaluation, w.Tool, w.CallID, w.Question)
}

// parked returns what the call of res waits for when its tool (or
// Approve) asked to wait, nil otherwise. A Waiting that names a call
// already is another evaluation's (one nested in the tool): its failure,
// not this call's question.
func (r *run) parked(res *callResult) *Waiting {
	w, ok := errors.AsType[*Waiting](res.outcome.Err)
	if !ok || w.CallID != "" {
		return nil
	}
	return &Waiting{Evaluation: r.eval, CallID: res.call.ID, Tool: res.call.Name, Question: w.Question, Approval: res.approval}
}

// answerKey keys the answer in the context of the approval it answers.
type answerKey struct{}

// AnswerOf returns the answer a person gave to the question an approval
// function asked by returning Wait, when Request.Approve is asked again
// about that call with it; false at every other call. An approval that
// asks a person, and says yes on their yes, reads:
//
//	func(ctx context.Context, inv *tools.Invocation, c model.ToolCall) error {
//		answer, ok := runner.AnswerOf(ctx)
//		switch {
//		case !ok:
//			return runner.Wait("May " + c.Name + " run? (yes/no)")
//		case answer == "yes":
//			return nil
//		}
//		return errors.New("the user said no")
//	}
func AnswerOf(ctx context.Context) (string, bool) {
	a, ok := ctx.Value(answerKey{}).(string)
	return a, ok
}

// approveCtx is the context Approve is asked about call c with: the
// tools' own, with the answer when c is the parked call being answered.
func (r *run) approveCtx(c model.ToolCall) context.Context {
	if a := r.answering; a != nil && a.call.ID == c.ID {
		return context.WithValue(r.toolCtx, answerKey{}, r.req.Answer)
	}
	return r.toolCtx
}

// waitingOf returns the Waiting err ends this evaluation on, nil when it
// ends otherwise.
func (r *run) waitingOf(err error) *Waiting {
	w, ok := errors.AsType[*Waiting](err)
	if !ok || w.CallID == "" || w.Evaluation != r.eval {
		return nil
	}
	return w
}

// notAskedText is the result of a call that asked to wait while another
// call of the same turn, run at the same time, waits already.
const notAskedText = "Not asked: another call of this turn is waiting for an answer already; ask again once it is answered."

// resumption is a parked evaluation being answered: the waiting call, and
// the calls of its turn that had not run.
type resumption struct {
	wait    Waiting
	call    model.ToolCall
	pending []model.ToolCall
}

// checkAnswer checks that Request.Answer and the session's wait agree: an
// answer only to an evaluation that waits, given as Continue; such an
// evaluation is continued only with one.
func (r *run) checkAnswer() error {
	s := r.req.Session
	w, ok := session.Latest[Waiting](s)
	waits := ok && !w.Answered && r.eval != "" && w.Evaluation == r.eval
	switch {
	case r.req.Answer == "" && waits:
		return fmt.Errorf("runner: evaluation %s of session %s waits for an answer to its %s call: %q; give it as Request.Answer", w.Evaluation, s.ID(), w.Tool, w.Question)
	case r.req.Answer != "" && !waits && ok && !w.Answered:
		return fmt.Errorf("runner: session %s waits for an answer in evaluation %s, not %q; continue that one (Request.Continue) to answer", s.ID(), w.Evaluation, r.eval)
	case r.req.Answer != "" && !waits:
		return fmt.Errorf("runner: session %s waits for no answer (it was answered already, or nothing asked); leave Request.Answer empty", s.ID())
	case r.req.Answer != "" && (r.req.UserMessage != "" || len(r.req.Messages) > 0):
		return errors.New("runner: an Answer continues the waiting tool call, so it comes alone: leave UserMessage and Messages empty")
	}
	return nil
}

// resumed returns the conversation of the parked evaluation id, up to its
// waiting call, and what to do on the answer. Tool calls left without a
// result before the waiting turn are dropped, as Continue does.
func resumed(s *session.Session, id string) ([]model.Message, *resumption, error) {
	w, _ := session.Latest[Waiting](s)
	msgs := Conversation(s.Snapshot(), id)
	at := -1
	for i, m := range msgs {
		if m.Role == model.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(c model.ToolCall) bool { return c.ID == w.CallID }) {
			at = i
		}
	}
	if at < 0 {
		return nil, nil, fmt.Errorf("runner: session %s waits on call %s, which evaluation %s does not hold; the session's records are incomplete", s.ID(), w.CallID, id)
	}
	answered := map[string]bool{}
	for _, m := range msgs[at+1:] {
		if m.Role == model.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	res := &resumption{wait: w}
	for _, c := range msgs[at].ToolCalls {
		switch {
		case c.ID == w.CallID:
			res.call = c
		case !answered[c.ID]:
			res.pending = append(res.pending, c)
		}
	}
	earlier := slices.Concat(repairToolCalls(slices.Clone(msgs[:at])), msgs[at:])
	return earlier, res, nil
}

// answer records Request.Answer as the result of the waiting call, and
// sets the calls of its turn that had not run to run next. A call whose
// approval waited runs again first, its approval reading the answer.
func (r *run) answer(res *resumption) error {
	if res.wait.Approval {
		r.answering = res
		r.calls, r.next = append([]model.ToolCall{res.call}, res.pending...), 0
		return nil
	}
	done := res.wait
	done.Answered = true
	compact, _ := compactArgs(res.call.Arguments)
	cr := callResult{
		call:    res.call,
		outcome: tools.Outcome{Text: r.req.Answer, Success: true, Events: []any{done}},
		rec:     ToolInvoked{Evaluation: r.eval, NS: r.rendered.NS, Key: r.rendered.Key, Name: res.call.Name, CallID: res.call.ID, Arguments: compact},
	}
	if err := r.record(&cr); err != nil {
		return err
	}
	if len(res.pending) > 0 {
		r.calls, r.next = res.pending, 0
	}
	return nil
}
