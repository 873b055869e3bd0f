package model_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/model"
)

// described is a model that says what it calls.
type described struct {
	model.Func
	d model.Description
}

func (m described) Describe() model.Description { return m.d }

func TestDescribe(t *testing.T) {
	plain := model.Func(func(context.Context, *model.Request) (*model.Response, error) { return nil, nil })
	tests := []struct {
		name string
		m    model.Model
		want model.Description
	}{
		{"a model that says nothing", plain, model.Description{}},
		{"a nil model", nil, model.Description{}},
		{"a describer", described{plain, model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "api.openai.com", ServerPort: 443}},
			model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "api.openai.com", ServerPort: 443}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, model.Describe(tt.m))
		})
	}
}

func TestErrorKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{context.Canceled, "cancelled"},
		{fmt.Errorf("runner: %w", context.DeadlineExceeded), "timeout"},
		{&model.TimeoutError{Stall: true}, "timeout"},
		{&model.RateLimitError{Err: &model.APIError{StatusCode: 429}}, "rate_limited"},
		{fmt.Errorf("x: %w", model.ErrContextLength), "context_length"},
		{model.ErrAuth, "auth"},
		{model.ErrQuota, "quota"},
		{&model.APIError{StatusCode: 503, Message: "overloaded"}, "http_5xx"},
		{fmt.Errorf("wrapped: %w", &model.APIError{StatusCode: 404}), "http_4xx"},
		{&model.APIError{StatusCode: 200, Message: "response body invalid"}, "provider_error"},
		{&model.APIError{Code: "server_error", Message: "in the stream"}, "provider_error"},
		{errors.New("something else"), "_OTHER"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			assert.Equal(t, tt.want, model.ErrorKind(tt.err))
		})
	}
}

func TestResponseCarriesTheAnswerID(t *testing.T) {
	r := &model.Response{Model: "gpt-4.1-2025-04-14", ID: "chatcmpl-1"}
	c := r.Clone()
	assert.Equal(t, "chatcmpl-1", c.ID)
	assert.Equal(t, "gpt-4.1-2025-04-14", c.Model)
}
