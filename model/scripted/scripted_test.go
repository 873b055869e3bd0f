package scripted_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

var ctx = context.Background()

func conv(msgs ...model.Message) *model.Request { return &model.Request{Messages: msgs} }

func TestInOrder(t *testing.T) {
	m := scripted.New(
		scripted.ToolCall("search", `{"q":"go"}`),
		scripted.Text("done"),
	)
	req := conv(model.SystemMessage("sys"), model.UserMessage("find go"))
	resp, err := m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, model.FinishToolCalls, resp.FinishReason)
	assert.Equal(t, []model.ToolCall{{ID: "call_2_0", Name: "search", Arguments: `{"q":"go"}`}}, resp.Message.ToolCalls)
	assert.Equal(t, model.RoleAssistant, resp.Message.Role)
	assert.Equal(t, "scripted", resp.Model)
	// Usage is estimated: 2 messages in → 20 tokens; "search"+10 bytes out → 4 tokens.
	assert.Equal(t, model.Usage{InputTokens: 20, OutputTokens: 4, TotalTokens: 24}, resp.Usage)

	req.Messages = append(req.Messages, resp.Message, model.ToolMessage("call_2_0", "search", "results"))
	req.Model = "gpt-x"
	resp, err = m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Message.Content)
	assert.Equal(t, model.FinishStop, resp.FinishReason)
	assert.Equal(t, "gpt-x", resp.Model)
	require.NoError(t, m.Verify())

	_, err = m.Generate(ctx, req)
	require.ErrorIs(t, err, scripted.ErrUnexpectedRequest)
	var ue *scripted.UnexpectedRequestError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, 3, ue.Call)
	assert.Equal(t, `model "gpt-x"; 4 messages; system "sys"; last user "find go"; last tool result of "search" (call_2_0) "results"`, ue.Request)
	assert.Equal(t, []string{"in order: all 2 turns were used"}, ue.Expected)

	calls := m.Calls()
	require.Len(t, calls, 3)
	assert.Equal(t, "in order", calls[0].Route)
	assert.Len(t, calls[0].Request.Messages, 2, "the call keeps the messages at call time")
	assert.Equal(t, "done", calls[1].Response.Message.Content)
	assert.Equal(t, "", calls[2].Route)
	assert.ErrorIs(t, calls[2].Err, scripted.ErrUnexpectedRequest)
}

func TestRoutes(t *testing.T) {
	m := scripted.New(
		scripted.When(scripted.HasToolResult("read"), scripted.Text("summary of the file")),
		scripted.When(scripted.LastUserContains("step 1"), scripted.ToolCall("read", `{"path":"a"}`)),
		scripted.When(scripted.LastUserContains("step 2"), scripted.Text("two")),
		scripted.Text("fallback"),
	)
	tests := []struct {
		name string
		req  *model.Request
		want string
	}{
		{"route by last user", conv(model.UserMessage("do step 2")), "two"},
		{"inline when no route matches", conv(model.UserMessage("hello")), "fallback"},
		{"tool call route", conv(model.UserMessage("do step 1")), "tool calls read"},
		{"tool result route tried first", conv(model.UserMessage("do step 1"),
			model.AssistantMessage("", model.ToolCall{ID: "c1", Name: "read"}), model.Message{Role: model.RoleTool, ToolCallID: "c1", Content: "x"}),
			"summary of the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := m.Generate(ctx, tt.req)
			require.NoError(t, err)
			got := resp.Message.Content
			if len(resp.Message.ToolCalls) > 0 {
				got = "tool calls " + resp.Message.ToolCalls[0].Name
			}
			assert.Equal(t, tt.want, got)
		})
	}
	require.NoError(t, m.Verify())

	_, err := m.Generate(ctx, conv(model.SystemMessage("planner"), model.UserMessage("do step 2")))
	var ue *scripted.UnexpectedRequestError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, []string{
		`when has a result of tool "read": does not match`,
		`when last user message contains "step 1": does not match`,
		`when last user message contains "step 2": matches, but all its 1 turn were used`,
		`in order: all 1 turn were used`,
	}, ue.Expected)
	assert.Contains(t, err.Error(), `request: 2 messages; system "planner"; last user "do step 2"`)
}

func TestNestedWhenAndRepeat(t *testing.T) {
	m := scripted.New(
		scripted.When(scripted.SystemContains("child"),
			scripted.Text("child first"),
			scripted.When(scripted.HasToolResult("ls"), scripted.Repeat(scripted.Text("child saw ls"))),
			scripted.Text("child second"),
		),
		scripted.Repeat(scripted.When(scripted.SystemContains("worker"), scripted.Text("w1"), scripted.Text("w-again"))),
	)
	child := conv(model.SystemMessage("you are a child"), model.UserMessage("go"))
	withLs := conv(model.SystemMessage("you are a child"), model.UserMessage("go"), model.ToolMessage("c", "ls", "a b"))
	worker := conv(model.SystemMessage("worker"))
	for _, step := range []struct {
		req  *model.Request
		want string
	}{
		{withLs, "child saw ls"},
		{child, "child first"},
		{withLs, "child saw ls"},
		{child, "child second"},
		{worker, "w1"},
		{worker, "w-again"},
		{worker, "w-again"},
	} {
		resp, err := m.Generate(ctx, step.req)
		require.NoError(t, err)
		assert.Equal(t, step.want, resp.Message.Content)
	}
	require.NoError(t, m.Verify())
	_, err := m.Generate(ctx, child)
	require.ErrorIs(t, err, scripted.ErrUnexpectedRequest)
}

func TestVerifyReportsUnusedTurns(t *testing.T) {
	m := scripted.New(scripted.Text("a"), scripted.Text("b"),
		scripted.When(scripted.LastUserContains("x"), scripted.ToolCall("t", "")), scripted.Repeat(scripted.Text("c")))
	_, err := m.Generate(ctx, conv(model.UserMessage("hi")))
	require.NoError(t, err)
	err = m.Verify()
	require.Error(t, err)
	assert.Equal(t, `scripted: 2 script queues never used: when last user message contains "x": tool calls t; in order: text "b"`, err.Error())
	assert.Equal(t, `when last user message contains "x": 1 turns`, scripted.When(scripted.LastUserContains("x"), scripted.Text("y")).String())
}

func TestTurnKinds(t *testing.T) {
	boom := &model.RateLimitError{Err: errors.New("slow down")}
	fixed := &model.Response{Message: model.Message{Content: "fixed"}, FinishReason: model.FinishLength, Usage: model.Usage{TotalTokens: 5}, Model: "m1"}
	tests := []struct {
		name    string
		turn    scripted.Turn
		want    *model.Response
		wantErr error
		errText string
	}{
		{name: "reply is returned as given", turn: scripted.Reply(fixed),
			want: &model.Response{Message: model.Message{Role: model.RoleAssistant, Content: "fixed"}, FinishReason: model.FinishLength, Usage: model.Usage{TotalTokens: 5}, Model: "m1"}},
		{name: "reply nil", turn: scripted.Reply(nil), errText: "nil response"},
		{name: "fail", turn: scripted.Fail(boom), wantErr: model.ErrRateLimited},
		{name: "json", turn: scripted.JSON(map[string]any{"b": 1, "a": "<x>"}),
			want: &model.Response{Message: model.Message{Role: model.RoleAssistant, Content: `{"a":"<x>","b":1}`}, FinishReason: model.FinishStop,
				Usage: model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}, Model: "scripted"}},
		{name: "json error", turn: scripted.JSON(func() {}), errText: "JSON turn"},
		{name: "func", turn: scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.Message{Content: "echo " + req.Messages[0].Content}}, nil
		}), want: &model.Response{Message: model.Message{Role: model.RoleAssistant, Content: "echo hi"}, Model: "scripted"}},
		{name: "func returning nothing", turn: scripted.Func(func(context.Context, *model.Request) (*model.Response, error) { return nil, nil }),
			errText: "neither a response nor an error"},
		{name: "with usage", turn: scripted.Text("x").WithUsage(model.Usage{InputTokens: 100, OutputTokens: 1, TotalTokens: 101}),
			want: &model.Response{Message: model.Message{Role: model.RoleAssistant, Content: "x"}, FinishReason: model.FinishStop,
				Usage: model.Usage{InputTokens: 100, OutputTokens: 1, TotalTokens: 101}, Model: "scripted"}},
		{name: "tool calls with ids kept and defaults", turn: scripted.ToolCalls(model.ToolCall{ID: "mine", Name: "a"}, model.ToolCall{Name: "b", Arguments: `{"x":1}`}),
			want: &model.Response{Message: model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
				{ID: "mine", Name: "a", Arguments: "{}"}, {ID: "call_1_1", Name: "b", Arguments: `{"x":1}`}}},
				FinishReason: model.FinishToolCalls, Usage: model.Usage{InputTokens: 10, OutputTokens: 3, TotalTokens: 13}, Model: "scripted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := scripted.New(tt.turn)
			resp, err := m.Generate(ctx, conv(model.UserMessage("hi")))
			switch {
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, resp)
			case tt.errText != "":
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errText)
				assert.Nil(t, resp)
			default:
				require.NoError(t, err)
				assert.Equal(t, tt.want, resp)
			}
		})
	}
	// A fixed reply is copied: changing what one caller got changes nothing else.
	m := scripted.New(scripted.Repeat(scripted.Reply(fixed)))
	r1, err := m.Generate(ctx, conv())
	require.NoError(t, err)
	r1.Message.Content = "changed"
	r2, err := m.Generate(ctx, conv())
	require.NoError(t, err)
	assert.Equal(t, "fixed", r2.Message.Content)
	assert.Equal(t, "fixed", fixed.Message.Content)
}

func TestCancelledContext(t *testing.T) {
	m := scripted.New(scripted.Text("never"))
	c, cancel := context.WithCancel(ctx)
	cancel()
	_, err := m.Generate(c, conv())
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, m.Calls())
	require.Error(t, m.Verify(), "the turn was not consumed")

	_, err = m.Generate(ctx, nil)
	require.Error(t, err)
}

func TestParallelChildrenAreDeterministic(t *testing.T) {
	const n = 16
	var turns []scripted.Turn
	for i := range n {
		turns = append(turns, scripted.When(scripted.LastUserContains(fmt.Sprintf("child %d:", i)),
			scripted.ToolCall("read", fmt.Sprintf(`{"path":"file%d"}`, i)),
			scripted.Text(fmt.Sprintf("summary %d", i))))
	}
	m := scripted.New(turns...)
	got := runChildren(t, m, n)
	for i := range n {
		assert.Equal(t, fmt.Sprintf("call_2_0 read {\"path\":\"file%d\"} → summary %d", i, i), got[i])
	}
	require.NoError(t, m.Verify())
	assert.Len(t, m.Calls(), 2*n)
}

// runChildren runs n two-turn conversations in parallel against m and
// returns a description of each.
func runChildren(t *testing.T, m model.Model, n int) []string {
	t.Helper()
	out := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := &model.Request{
				Messages: []model.Message{model.SystemMessage("You are child agent."), model.UserMessage(fmt.Sprintf("child %d: do your part", i))},
				Tools:    []model.ToolSpec{{Name: "read", Description: "Read a file."}},
			}
			first, err := m.Generate(ctx, req)
			if err != nil {
				errs[i] = err
				return
			}
			call := first.Message.ToolCalls[0]
			req.Messages = append(req.Messages, first.Message, model.ToolMessage(call.ID, call.Name, "contents of "+call.Arguments))
			second, err := m.Generate(ctx, req)
			if err != nil {
				errs[i] = err
				return
			}
			out[i] = fmt.Sprintf("%s %s %s → %s", call.ID, call.Name, call.Arguments, second.Message.Content)
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return out
}
