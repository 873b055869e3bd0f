package tools_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// lsParams is the two-field parameter struct of the examples in the spec.
type lsParams struct {
	Path  string `json:"path" validate:"required,ascii" jsonschema:"the directory to list"`
	Limit int    `json:"limit,omitempty" validate:"min=1,max=5000"`
}

// lsResult is the result of the ls tool.
type lsResult struct {
	Entries []string `json:"entries"`
}

// newLs builds an ls tool whose handler is h.
func newLs(t testing.TB, h tools.Handler[lsParams, lsResult], opts ...tools.Option) tools.Tool {
	t.Helper()
	opts = append([]tools.Option{tools.WithDefaults(lsParams{Limit: 2000})}, opts...)
	tool, err := tools.New("ls", "List the entries of a directory.", h, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// listPath answers with the path it was given.
func listPath(_ context.Context, _ *tools.Invocation, p lsParams) (tools.Result[lsResult], error) {
	return tools.OK("1 entry", lsResult{Entries: []string{p.Path}}), nil
}
