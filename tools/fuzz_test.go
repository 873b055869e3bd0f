package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/tools"
)

// fuzzParams has the shapes model arguments exercise: strings with rules,
// numbers with bounds and defaults, nested objects, lists, pointers.
type fuzzParams struct {
	Path    string            `json:"path" validate:"required,max=64,printascii"`
	Limit   int               `json:"limit,omitempty" validate:"min=1,max=2000"`
	Tags    []string          `json:"tags,omitempty" validate:"omitempty,dive,max=8"`
	Nested  *fuzzNested       `json:"nested,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Enabled bool              `json:"enabled"`
}

type fuzzNested struct {
	Mode string `json:"mode" validate:"oneof=a b"`
}

// FuzzCallArguments checks that a tool call never panics on arbitrary
// arguments, runs the handler only with valid params, and reports every
// rejection as a *tools.ValidationError with the exact model-facing prefix.
func FuzzCallArguments(f *testing.F) {
	for _, seed := range []string{
		`{"path":"docs","limit":5}`, `{"path":"a","tags":["x","y"],"nested":{"mode":"a"},"labels":{"k":"v"}}`,
		`{}`, ``, `[]`, `null`, `"x"`, `42`, `{"path":1}`, `{"path":"a","extra":true}`, `{"path":"a"} {}`,
		`{"path":"a","nested":{"mode":"c"}}`, `{"path":"ü"}`, `{"path":"a","limit":0}`, `{"path":"a","limit":1e400}`,
	} {
		f.Add(seed)
	}
	tool, err := tools.New("probe", "Probe the arguments.", func(_ context.Context, _ *tools.Invocation, p fuzzParams) (tools.Result[fuzzParams], error) {
		if err := serde.Validate(p); err != nil {
			return tools.Result[fuzzParams]{}, errors.New("handler got invalid params: " + err.Error())
		}
		return tools.OK("ok", p), nil
	}, tools.WithDefaults(fuzzParams{Limit: 100}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		out := tool.Call(context.Background(), nil, json.RawMessage(args))
		if out.Success {
			if out.Err != nil || !strings.HasPrefix(out.Text, "ok") {
				t.Fatalf("success with err %v, text %q", out.Err, out.Text)
			}
			return
		}
		var ve *tools.ValidationError
		if !errors.As(out.Err, &ve) {
			t.Fatalf("args %q: failure is not a validation error: %v", args, out.Err)
		}
		if !strings.HasPrefix(out.Text, "Tool validation failed: probe: ") {
			t.Fatalf("args %q: unexpected text %q", args, out.Text)
		}
	})
}
