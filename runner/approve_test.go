package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Request.Approve is asked before every tool call; a denial is the call's
// failed result, marked Denied on its record, the tool never runs, and the
// model carries on.
func TestApproveGatesEachToolCall(t *testing.T) {
	tests := map[string]struct {
		approve  func(context.Context, *tools.Invocation, model.ToolCall) error
		wantText string
		ran      bool
	}{
		"allowed": {
			approve:  func(context.Context, *tools.Invocation, model.ToolCall) error { return nil },
			wantText: `echoed`,
			ran:      true,
		},
		"denied": {
			approve: func(_ context.Context, _ *tools.Invocation, c model.ToolCall) error {
				return errors.New("the user declined " + c.Name)
			},
			wantText: "Permission to use the tool 'echo' was denied: the user declined echo",
		},
		"approver panics": {
			approve:  func(context.Context, *tools.Invocation, model.ToolCall) error { panic("approver bug") },
			wantText: "Permission to use the tool 'echo' was denied: the approval check failed: panic: approver bug",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			s := newSession(t)
			var mu sync.Mutex
			var asked []string
			req := request(newPrompt(t, echoTool(t)), s, scripted.New(scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done")))
			req.Approve = func(ctx context.Context, inv *tools.Invocation, c model.ToolCall) error {
				mu.Lock()
				asked = append(asked, inv.CallID+" "+c.Name+" "+c.Arguments)
				mu.Unlock()
				return tt.approve(ctx, inv, c)
			}
			resp, err := runner.Evaluate(ctx, req)
			require.NoError(t, err)
			assert.Equal(t, "done", resp.Text, "the model carries on")
			assert.Len(t, asked, 1)
			assert.Contains(t, lastToolMessage(t, resp), tt.wantText)
			rec, ok := session.Latest[runner.ToolInvoked](s)
			require.True(t, ok)
			assert.Equal(t, tt.ran, rec.Success)
			assert.Equal(t, !tt.ran, rec.Denied, "the record says the call was denied")
			assert.Equal(t, tt.ran, session.Len[Echoed](s) == 1, "a denied tool never runs")
		})
	}
}

// Request.AfterTool is told of each call that ran, with its result, and
// what it says is added to what the model reads; it is not told of a
// denied call, and its panic adds nothing.
func TestAfterToolAddsToTheResult(t *testing.T) {
	for name, tt := range map[string]struct {
		after   func(context.Context, *tools.Invocation, model.ToolCall, string) string
		approve func(context.Context, *tools.Invocation, model.ToolCall) error
		want    string
		told    int
	}{
		"a note": {
			after: func(_ context.Context, _ *tools.Invocation, c model.ToolCall, result string) string {
				return "The hook read " + c.Name + ": " + result
			},
			want: "echoed\n\n{\"echo\":\"hi\"}\n\nThe hook read echo: echoed\n\n{\"echo\":\"hi\"}", told: 1,
		},
		"nothing": {after: func(context.Context, *tools.Invocation, model.ToolCall, string) string { return " " }, want: "echoed\n\n{\"echo\":\"hi\"}", told: 1},
		"a panic": {after: func(context.Context, *tools.Invocation, model.ToolCall, string) string { panic("hook bug") }, want: "echoed\n\n{\"echo\":\"hi\"}", told: 1},
		"denied": {
			after:   func(context.Context, *tools.Invocation, model.ToolCall, string) string { return "never" },
			approve: func(context.Context, *tools.Invocation, model.ToolCall) error { return errors.New("no") },
			want:    "Permission to use the tool 'echo' was denied: no",
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSession(t)
			var mu sync.Mutex
			told := 0
			req := request(newPrompt(t, echoTool(t)), s, scripted.New(scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done")))
			req.Approve = tt.approve
			req.AfterTool = func(ctx context.Context, inv *tools.Invocation, c model.ToolCall, result string) string {
				mu.Lock()
				told++
				mu.Unlock()
				return tt.after(ctx, inv, c, result)
			}
			resp, err := runner.Evaluate(ctx, req)
			require.NoError(t, err)
			assert.Equal(t, tt.want, lastToolMessage(t, resp))
			assert.Equal(t, tt.told, told)
		})
	}
}

// rewrite is an approval that runs the call with other arguments.
type rewrite string

func (r rewrite) Error() string              { return "rewritten" }
func (r rewrite) Arguments() json.RawMessage { return json.RawMessage(r) }

// An approval that gives other arguments runs the call with them, checked
// as the model's are; AfterTool sees them; the record keeps the model's.
func TestApproveMayRewriteTheArguments(t *testing.T) {
	for name, tt := range map[string]struct {
		args, want string
		ran        bool
	}{
		"rewritten":  {`{"text":"bye"}`, "echoed", true},
		"not object": {`[1]`, "Tool validation failed: echo: must be a JSON object, got an array", false},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSession(t)
			var after string
			req := request(newPrompt(t, echoTool(t)), s, scripted.New(scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done")))
			req.Approve = func(context.Context, *tools.Invocation, model.ToolCall) error {
				return fmt.Errorf("wrapped: %w", rewrite(tt.args))
			}
			req.AfterTool = func(_ context.Context, _ *tools.Invocation, c model.ToolCall, _ string) string {
				after = c.Arguments
				return ""
			}
			resp, err := runner.Evaluate(ctx, req)
			require.NoError(t, err)
			assert.Contains(t, lastToolMessage(t, resp), tt.want)
			rec, ok := session.Latest[runner.ToolInvoked](s)
			require.True(t, ok)
			assert.JSONEq(t, `{"text":"hi"}`, string(rec.Arguments))
			assert.False(t, rec.Denied)
			if tt.ran {
				assert.Contains(t, lastToolMessage(t, resp), `"bye"`)
				assert.Equal(t, tt.args, after)
			}
		})
	}
}
