package prompt_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Task is the params of the task sections.
type Task struct {
	Goal  string `json:"goal" validate:"required,max=40"`
	Steps []string
}

// Files is the params of the file sections.
type Files struct {
	Paths    []string `json:"paths" validate:"max=3,dive,ascii"`
	ReadOnly bool     `json:"read_only"`
}

// Flags switches sections on and off.
type Flags struct {
	Debug bool
	Boom  bool
}

// Fail fails when Boom is set: a template calling it fails at render time.
func (f Flags) Fail() (string, error) {
	if f.Boom {
		return "", errors.New("boom")
	}
	return "fine", nil
}

// echoParams are the params of the test tools.
type echoParams struct {
	Text string `json:"text"`
}

// tool builds a trivial tool named name.
func tool(t testing.TB, name string) tools.Tool {
	t.Helper()
	tl, err := tools.New(name, "The "+name+" tool.", func(_ context.Context, _ *tools.Invocation, p echoParams) (tools.Result[string], error) {
		return tools.OK(p.Text, ""), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// mustNew is prompt.New for prompts a test expects to build.
func mustNew(t testing.TB, ns, key string, parts ...prompt.Part) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New(ns, key, parts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
