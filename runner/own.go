package runner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// ErrAbandoned is matched (errors.Is) by the error of an evaluation that
// was cancelled while a tool that ignores its context ran, and returned
// without it after Request.CancelGrace.
var ErrAbandoned = errors.New("runner: a tool call was abandoned")

// toolsRunning records that the loop starts (calls) or stops (nil)
// calling tools, and reports whether the evaluation was abandoned
// meanwhile: then the loop must stop at once, touching nothing.
func (r *run) toolsRunning(calls []model.ToolCall) (abandoned bool) {
	r.abandonMu.Lock()
	defer r.abandonMu.Unlock()
	r.running = calls
	return r.abandoned
}

// runOwn goes on with the loop on a goroutine of its own and waits for it,
// so that when the evaluation is cancelled and the tools being called do
// not return within CancelGrace, they can be abandoned (see abandon): one
// goroutine per evaluation that calls tools, not one per call. When the
// loop's goroutine ends without returning (a tool, the model or an
// observer called runtime.Goexit), the evaluation fails.
func (r *run) runOwn() (*Response, error) {
	r.ownGoroutine = true
	type result struct {
		resp *Response
		err  error
	}
	done := make(chan result, 1) // the loop never waits for a caller gone
	serve := func() {
		var out result
		returned := false
		defer func() {
			switch p := recover(); {
			case returned:
			case p != nil:
				r.settle()
				out = result{r.resp, r.fail(r.phase, &panicError{fmt.Sprintf("panic: %v", p)})}
			case r.phase == PhaseTool && r.next < len(r.calls):
				out.resp, out.err = r.partial(r.phase, fmt.Errorf("%w: tool %q must return one", errGoexit, r.calls[r.next].Name))
			default:
				out.resp, out.err = r.partial(r.phase, errLoopGoexit)
			}
			done <- out
		}()
		out.resp, out.err = r.loop()
		returned = true
	}
	go serve()
	select {
	case out := <-done:
		return out.resp, out.err
	case <-r.ctx.Done():
	}
	grace := r.req.CancelGrace
	if grace <= 0 {
		grace = defaultCancelGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case out := <-done:
		return out.resp, out.err
	case <-t.C:
		if resp, err, ok := r.abandon(grace); ok {
			return resp, err
		}
		out := <-done // not in a tool call: the loop stops soon
		return out.resp, out.err
	}
}

// abandon gives up on the tool calls that still run CancelGrace after the
// cancellation: it returns what the evaluation did so far, with an error
// naming them, and marks the run abandoned, so that the loop, when the
// calls return at last, stops without touching anything. ok is false when
// the loop is not inside tool calls (it is about to stop by itself).
func (r *run) abandon(grace time.Duration) (resp *Response, err error, ok bool) {
	r.abandonMu.Lock()
	defer r.abandonMu.Unlock()
	if len(r.running) == 0 {
		return nil, nil, false
	}
	r.abandoned = true
	cp := *r.resp
	cp.Messages = slices.Clone(r.resp.Messages)
	cp.ToolsUsed = slices.Clone(r.resp.ToolsUsed)
	cp.Duration = r.clock().Sub(r.start)
	called := make([]string, len(r.running))
	for i, c := range r.running {
		called[i] = c.Name
	}
	names := strings.Join(called, ", ")
	if r.req.Logger != nil {
		r.req.Logger.Warn("runner: abandoned tool calls that ignore the cancellation; their goroutines run until they return",
			"prompt", r.prompt, "tools", names, "grace", grace)
	}
	return &cp, r.fail(PhaseTool, fmt.Errorf("%w: %s still ran %s after the evaluation was cancelled (%w), and goes on in the background; "+
		"a tool must return when its context is done", ErrAbandoned, names, grace, r.ctx.Err())), true
}

// errLoopGoexit is the failure of an evaluation whose loop's goroutine
// was ended outside a tool call (by a model or an observer calling
// runtime.Goexit).
var errLoopGoexit = errors.New("runner: the evaluation's goroutine was ended (runtime.Goexit) outside a tool call")
