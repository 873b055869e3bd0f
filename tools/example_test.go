package tools_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/tools"
)

// GrepParams are the arguments of the grep tool.
type GrepParams struct {
	Pattern string `json:"pattern" validate:"required,max=100" jsonschema:"the text to look for"`
	Limit   int    `json:"limit,omitempty" validate:"min=1,max=100" jsonschema:"the most lines to return"`
}

// GrepResult is the grep tool's result value.
type GrepResult struct {
	Lines []string `json:"lines"`
}

// Declaring a typed tool: the handler gets decoded, validated parameters,
// and the model sees either the result or one of two failure texts.
func ExampleNew() {
	text := []string{"alpha", "beta", "alphabet"}
	grep, err := tools.New("grep", "Find the lines that contain a text.",
		func(ctx context.Context, inv *tools.Invocation, p GrepParams) (tools.Result[GrepResult], error) {
			var res GrepResult
			for _, line := range text {
				if strings.Contains(line, p.Pattern) && len(res.Lines) < p.Limit {
					res.Lines = append(res.Lines, line)
				}
			}
			if len(res.Lines) == 0 {
				return tools.Failed[GrepResult]("no line contains " + p.Pattern + "; try a shorter text"), nil
			}
			return tools.OK(fmt.Sprintf("%d lines", len(res.Lines)), res), nil
		},
		tools.WithDefaults(GrepParams{Limit: 10}),
		tools.WithExamples(tools.Example[GrepParams, GrepResult]{
			Description: "find the alphas",
			Input:       GrepParams{Pattern: "alpha", Limit: 10},
			Output:      GrepResult{Lines: []string{"alpha", "alphabet"}},
		}),
		tools.ConcurrentSafe(),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, args := range []string{
		`{"pattern": "alpha"}`,
		`{"pattern": "alpha", "limit": 1}`,
		`{"pattern": "gamma"}`,
		`{"pattern": "alpha", "limit": 0}`,
		`{"pattern": "alpha", "regexp": true}`,
	} {
		out := grep.Call(ctx, nil, []byte(args))
		fmt.Printf("%v %q\n", out.Success, out.Text)
	}
	fmt.Println(string(grep.Spec().Params))
	// Output:
	// true "2 lines\n\n{\"lines\":[\"alpha\",\"alphabet\"]}"
	// true "1 lines\n\n{\"lines\":[\"alpha\"]}"
	// false "no line contains gamma; try a shorter text"
	// false "Tool validation failed: grep: limit: must be at least 1"
	// false "Tool validation failed: grep: regexp: unknown field; allowed: pattern, limit"
	// {"type":"object","properties":{"pattern":{"type":"string","description":"the text to look for","minLength":1,"maxLength":100},"limit":{"type":"integer","description":"the most lines to return","default":10,"minimum":1,"maximum":100}},"required":["pattern"],"additionalProperties":false}
}
