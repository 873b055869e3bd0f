package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

func TestUsageAdd(t *testing.T) {
	tests := []struct {
		a, b, want model.Usage
	}{
		{model.Usage{}, model.Usage{}, model.Usage{}},
		{model.Usage{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}, model.Usage{InputTokens: 10, OutputTokens: 20, TotalTokens: 30},
			model.Usage{InputTokens: 11, OutputTokens: 22, TotalTokens: 33}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.a.Add(tt.b))
		assert.Equal(t, tt.want, tt.b.Add(tt.a))
	}
	assert.True(t, model.Usage{}.IsZero())
	assert.False(t, model.Usage{TotalTokens: 1}.IsZero())
}

func TestErrorsMatchThroughWrapping(t *testing.T) {
	api := &model.APIError{StatusCode: 429, Code: "rate_limit_exceeded", Message: "slow down"}
	rl := &model.RateLimitError{RetryAfter: 2 * time.Second, Err: api}
	wrapped := fmt.Errorf("runner: turn 3: %w", rl)

	assert.ErrorIs(t, wrapped, model.ErrRateLimited)
	var got *model.RateLimitError
	require.ErrorAs(t, wrapped, &got)
	assert.Equal(t, 2*time.Second, got.RetryAfter)
	var gotAPI *model.APIError
	require.ErrorAs(t, wrapped, &gotAPI)
	assert.Equal(t, 429, gotAPI.StatusCode)
	assert.Equal(t, "model: rate limited (retry after 2s): model: provider error (HTTP 429, code rate_limit_exceeded): slow down", rl.Error())
	assert.NotErrorIs(t, wrapped, model.ErrAuth)

	tests := []struct {
		err  *model.APIError
		want string
		temp bool
	}{
		{&model.APIError{StatusCode: 500, Message: "oops"}, "model: provider error (HTTP 500): oops", true},
		{&model.APIError{Code: "x", Err: errors.New("inner")}, "model: provider error (code x): inner", false},
		{&model.APIError{StatusCode: 404}, "model: provider error (HTTP 404)", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
		assert.Equal(t, tt.temp, tt.err.Temporary())
	}
	assert.Equal(t, "model: rate limited", (&model.RateLimitError{}).Error())
}

func TestRequestCloneSharesNothing(t *testing.T) {
	temp := 0.5
	req := &model.Request{
		Model:       "m",
		Messages:    []model.Message{model.SystemMessage("s"), model.AssistantMessage("", model.ToolCall{ID: "1", Name: "t", Arguments: "{}"})},
		Tools:       []model.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Output:      &model.OutputSpec{Name: "o", Schema: json.RawMessage(`{}`)},
		Temperature: &temp,
		Stop:        []string{"x"},
	}
	c := req.Clone()
	require.Equal(t, req, c)
	c.Messages[1].ToolCalls[0].Name = "changed"
	c.Tools[0].Parameters[0] = '['
	c.Output.Name = "changed"
	*c.Temperature = 1
	c.Stop[0] = "y"
	assert.Equal(t, "t", req.Messages[1].ToolCalls[0].Name)
	assert.Equal(t, `{"type":"object"}`, string(req.Tools[0].Parameters))
	assert.Equal(t, "o", req.Output.Name)
	assert.Equal(t, 0.5, *req.Temperature)
	assert.Equal(t, "x", req.Stop[0])
	assert.Nil(t, (*model.Request)(nil).Clone())
	assert.Nil(t, (&model.Request{}).Clone().Messages)

	resp := &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "1"})}
	rc := resp.Clone()
	rc.Message.ToolCalls[0].ID = "2"
	assert.Equal(t, "1", resp.Message.ToolCalls[0].ID)
	assert.Nil(t, (*model.Response)(nil).Clone())
}

func TestMessageHelpers(t *testing.T) {
	assert.Equal(t, model.Message{Role: model.RoleSystem, Content: "s"}, model.SystemMessage("s"))
	assert.Equal(t, model.Message{Role: model.RoleUser, Content: "u"}, model.UserMessage("u"))
	assert.Equal(t, model.Message{Role: model.RoleTool, ToolCallID: "c", Name: "n", Content: "r"}, model.ToolMessage("c", "n", "r"))
	for _, r := range []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool} {
		assert.True(t, r.Valid())
	}
	assert.False(t, model.Role("function").Valid())
}

func TestFunc(t *testing.T) {
	var m model.Model = model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		return &model.Response{Model: req.Model}, nil
	})
	resp, err := m.Generate(context.Background(), &model.Request{Model: "x"})
	require.NoError(t, err)
	assert.Equal(t, "x", resp.Model)
}
