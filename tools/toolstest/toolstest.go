// Package toolstest checks that a tool holds to the contract of
// tools.Tool, in the manner of testing/fstest's TestFS: call Check from a
// test of your own hand-written tool (tools built with tools.New hold to it
// by construction).
//
//	func TestMyTool(t *testing.T) {
//		toolstest.Check(t, myTool)
//	}
package toolstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Check's own bounds on a call of the tool under check, so that a tool
// that hangs gets Check's report well within go test's timeout: each call
// gets a context that expires after callBound, and a call that has not
// returned returnBound after its context was done is reported as hung.
// They are a watchdog, not a measure of speed.
const (
	callBound   = 10 * time.Second
	returnBound = 5 * time.Second
)

// badArguments are arguments a model may send that no tool accepts as
// they are, or that test its decoding: each call must end, without a
// panic, in an Outcome.
var badArguments = []string{``, `null`, `[]`, `"text"`, `42`, `{`, `{"a":`, `{}`, `{"unknown_field_of_no_tool":1}`, `{} {}`}

// Check reports, with t.Errorf, every way tool breaks the contract of
// tools.Tool:
//   - its Spec is valid (tools.Spec.Validate) and the same every time it
//     is asked;
//   - its reducers, when it declares some, install on a new session;
//   - Call never panics nor ends its goroutine, whatever the arguments —
//     malformed JSON, values of the wrong kind, its examples' inputs —
//     with or without an Invocation, and it returns once its context is
//     done. Check gives each call a context that expires after 10 s (some
//     calls get one already cancelled) and waits 5 s more: a call that has
//     not returned by then is reported as hung, its goroutine is left
//     behind, and Check calls the tool no more. A tool that hangs thus
//     costs Check at most 15 s;
//   - every Outcome is coherent: a failure has a text for the model, an
//     Err means a failure, and no event is nil;
//   - a concurrent-safe tool may be called from several goroutines at
//     once (run the test with -race).
//
// It reports true when the tool holds to all of it.
func Check(t testing.TB, tool tools.Tool) bool {
	t.Helper()
	if tool == nil {
		t.Errorf("toolstest: the tool is nil")
		return false
	}
	c := checker{t: t, tool: tool}
	spec, ok := c.spec()
	if !ok {
		return false
	}
	c.name = spec.Name
	inv := c.invocation(spec)
	var args []json.RawMessage
	for _, a := range badArguments {
		args = append(args, json.RawMessage(a))
	}
	for _, ex := range spec.Examples {
		args = append(args, ex.Input)
	}
	for _, a := range args {
		c.call(context.Background(), nil, a)
		c.call(context.Background(), inv, a)
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		c.call(cancelled, inv, a)
	}
	if spec.ConcurrentSafe && !c.hung.Load() {
		var wg sync.WaitGroup
		for _, a := range args {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.call(context.Background(), inv, a)
			}()
		}
		wg.Wait()
	}
	return !c.failed
}

// checker holds what one Check found.
type checker struct {
	t    testing.TB
	tool tools.Tool
	name string

	mu     sync.Mutex
	failed bool
	// hung is set by the first call that did not return: Check then calls
	// the tool no more.
	hung atomic.Bool
}

func (c *checker) errorf(format string, args ...any) {
	c.t.Helper()
	c.mu.Lock()
	c.failed = true
	c.mu.Unlock()
	c.t.Errorf("toolstest: tool %q: "+format, append([]any{c.name}, args...)...)
}

// spec returns the tool's spec when it is valid and stable.
func (c *checker) spec() (tools.Spec, bool) {
	var spec, again tools.Spec
	if p := safely(func() { spec = c.tool.Spec() }); p != "" {
		c.errorf("Spec panicked: %s", p)
		return spec, false
	}
	c.name = spec.Name
	if err := spec.Validate(); err != nil {
		c.errorf("its Spec is not valid: %v", err)
		return spec, false
	}
	if p := safely(func() { again = c.tool.Spec() }); p != "" {
		c.errorf("Spec panicked the second time it was asked: %s", p)
		return spec, false
	}
	if spec.Name != again.Name || spec.Description != again.Description || !bytes.Equal(spec.Params, again.Params) ||
		!bytes.Equal(spec.Result, again.Result) || spec.ConcurrentSafe != again.ConcurrentSafe || spec.Reducers.Key != again.Reducers.Key {
		c.errorf("its Spec changed between two calls; a tool is immutable")
		return spec, false
	}
	return spec, true
}

// invocation returns an Invocation on a new session with the tool's
// reducers installed, or nil when it cannot be had (the calls are then
// checked without one).
func (c *checker) invocation(spec tools.Spec) *tools.Invocation {
	s, err := session.New()
	if err != nil {
		c.t.Errorf("toolstest: a session for the calls: %v", err)
		return nil
	}
	c.t.Cleanup(func() { _ = s.Close() })
	if spec.Reducers.Key != "" {
		if err := s.Install(context.Background(), spec.Reducers); err != nil {
			c.errorf("its reducers do not install on a new session: %v", err)
		}
	}
	set, err := tools.NewToolset(c.tool)
	if err != nil {
		c.errorf("it does not make a toolset: %v", err)
		return nil
	}
	return &tools.Invocation{
		Session: s, Bus: s.Bus(), CallID: "toolstest", PromptNS: "toolstest", PromptKey: "check", Tools: set, Model: noModel, ModelName: "toolstest",
		Logger: slog.New(slog.DiscardHandler),
	}
}

// noModel is the model a checked tool's calls see: one that answers
// nothing, since a check runs no evaluation.
var noModel = model.Func(func(context.Context, *model.Request) (*model.Response, error) {
	return nil, errors.New("toolstest: no model answers during a check")
})

// call calls the tool once, with a context derived from parent that
// expires after callBound, and checks what it returns. It does nothing once
// a call hung.
func (c *checker) call(parent context.Context, inv *tools.Invocation, args json.RawMessage) {
	c.t.Helper()
	if c.hung.Load() {
		return
	}
	with := "without an Invocation"
	if inv != nil {
		with = "with an Invocation"
	}
	if parent.Err() != nil {
		with += ", its context cancelled,"
	}
	ctx, cancel := context.WithTimeout(parent, callBound)
	defer cancel()
	type result struct {
		out    tools.Outcome
		panic  string
		goexit bool
	}
	done := make(chan result, 1)
	go func() {
		r := result{goexit: true}
		defer func() { done <- r }() // sent on runtime.Goexit too
		r.panic = safely(func() { r.out = c.tool.Call(ctx, inv, args) })
		r.goexit = false
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		late := time.NewTimer(returnBound)
		defer late.Stop()
		select {
		case r = <-done:
		case <-late.C:
			how := fmt.Sprintf("expired (Check gives each call %s)", callBound)
			if parent.Err() != nil {
				how = "was cancelled"
			}
			if c.hung.CompareAndSwap(false, true) {
				c.errorf("Call(%s) %s did not return within %s after its context %s; a call must return once its context is done. Check stopped calling the tool", args, with, returnBound, how)
			}
			return
		}
	}
	switch {
	case r.goexit:
		c.errorf("Call(%s) %s ended its goroutine (runtime.Goexit); return a result", args, with)
	case r.panic != "":
		c.errorf("Call(%s) %s panicked: %s; report failures in the Outcome", args, with, r.panic)
	case !r.out.Success && r.out.Text == "":
		c.errorf("Call(%s) %s failed with no text for the model", args, with)
	case r.out.Err != nil && r.out.Success:
		c.errorf("Call(%s) %s has an Err (%v) but reports success", args, with, r.out.Err)
	}
	for i, e := range r.out.Events {
		if e == nil {
			c.errorf("Call(%s) %s returned a nil event (event %d)", args, with, i)
		}
	}
}

// safely runs f and returns what it panicked with, with the stack, or "".
func safely(f func()) (p string) {
	defer func() {
		if v := recover(); v != nil {
			p = fmt.Sprintf("%v\n%s", v, debug.Stack())
		}
	}()
	f()
	return ""
}
