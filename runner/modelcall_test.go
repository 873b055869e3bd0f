package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// server is a model that says what it calls and answers as a server
// does: with the dated id of the model and an id of the answer.
type server struct {
	*scripted.Model
	d model.Description
}

func (m server) Describe() model.Description { return m.d }

func (m server) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	resp, err := m.Model.Generate(ctx, req)
	if resp != nil {
		resp.Model, resp.ID = m.d.ID+"-2025-04-14", "chatcmpl-1"
	}
	return resp, err
}

// A model call's record names the model by its id — the one asked for and
// the one that answered — beside the route the program chose it by.
func TestModelCalledNamesTheModel(t *testing.T) {
	answer := scripted.Text("done")
	tests := []struct {
		name  string
		model model.Model
		want  runner.ModelCalled
		shown string
	}{
		{"a model that says what it calls",
			server{scripted.New(answer), model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "llm.internal", ServerPort: 8000}},
			runner.ModelCalled{Route: "main", Model: "gpt-4.1", ResponseModel: "gpt-4.1-2025-04-14", ResponseID: "chatcmpl-1", Server: "llm.internal:8000"},
			"gpt-4.1"},
		{"a scripted model", scripted.New(answer),
			runner.ModelCalled{Route: "main", Model: "scripted", ResponseModel: "scripted"}, "scripted"},
		{"a model that says nothing", model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop, Model: "qwen3"}, nil
		}), runner.ModelCalled{Route: "main", ResponseModel: "qwen3"}, "qwen3"},
		{"nor which answered", model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop}, nil
		}), runner.ModelCalled{Route: "main"}, "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			req := request(newPrompt(t), s, tt.model)
			req.ModelName = "main"
			_, err := runner.Evaluate(ctx, req)
			require.NoError(t, err)
			got, ok := session.Latest[runner.ModelCalled](s)
			require.True(t, ok)
			assert.Equal(t, tt.want.Route, got.Route)
			assert.Equal(t, tt.want.Model, got.Model)
			assert.Equal(t, tt.want.ResponseModel, got.ResponseModel)
			assert.Equal(t, tt.want.ResponseID, got.ResponseID)
			assert.Equal(t, tt.want.Server, got.Server)
			assert.Equal(t, tt.shown, got.Shown())
		})
	}
}

// A failed call's record says what kind of error ended it.
func TestModelCalledSaysTheKindOfError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&model.APIError{StatusCode: 502, Message: "bad gateway"}, "http_5xx"},
		{&model.RateLimitError{Err: &model.APIError{StatusCode: 429}}, "rate_limited"},
		{model.ErrAuth, "auth"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			s := newSession(t)
			_, err := runner.Evaluate(ctx, request(newPrompt(t), s, scripted.New(scripted.Fail(tt.err))))
			require.Error(t, err)
			got, ok := session.Latest[runner.ModelCalled](s)
			require.True(t, ok)
			assert.Equal(t, tt.want, got.ErrorType)
			assert.NotEmpty(t, got.Error)
		})
	}
}
