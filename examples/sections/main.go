// Command sections composes a prompt from sections in Go code, renders it,
// and runs it once against a scripted model — offline and deterministic:
//
//	go run ./examples/sections
//
// The prompt has four sections, each with a params type of its own (Render
// matches params to sections by type): a role, the repository under review
// with a list_files tool, the review itself with a read_file tool, and a
// "Strict Mode" child section, with a run_linter tool, that is enabled only
// when ReviewParams.Strict is set. The program renders it with Strict off,
// so that section and its tool are left out, and declares a structured
// output (Report) that runner.Evaluate parses and runner.Output returns
// typed.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sections:", err)
		os.Exit(1)
	}
}

// RepoParams are the params of the Repository section.
type RepoParams struct {
	Name string `validate:"required"`
}

// ReviewParams are the params of the Review section and its Strict Mode
// child.
type ReviewParams struct {
	Focus  string `validate:"required"`
	Strict bool
}

// ListParams are the arguments of list_files (none).
type ListParams struct{}

// ReadParams are the arguments of read_file.
type ReadParams struct {
	Path string `json:"path" validate:"required" jsonschema:"the file to read, as list_files shows it"`
}

// LintParams are the arguments of run_linter.
type LintParams struct {
	Path string `json:"path" validate:"required"`
}

// FileRead is the event read_file returns: the session records which files
// the review looked at.
type FileRead struct{ Path string }

// Finding is one problem the review found.
type Finding struct {
	File    string `json:"file" validate:"required"`
	Comment string `json:"comment" validate:"required"`
}

// Report is the prompt's structured output.
type Report struct {
	Summary  string    `json:"summary" validate:"required"`
	Findings []Finding `json:"findings"`
}

// files is the repository the tools read.
var files = map[string]string{
	"README.md":   "# Demo\n\nRun `go run ./cmd/demo`.\n",
	"cmd/demo.go": "package main\n\nfunc main() { println(\"helo\") }\n",
}

// newPrompt composes the review prompt from sections, each offering its own
// tool.
func newPrompt() (*prompt.Prompt, error) {
	listFiles := func(context.Context, *tools.Invocation, ListParams) (tools.Result[[]string], error) {
		paths := make([]string, 0, len(files))
		for p := range files {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		return tools.OK(fmt.Sprintf("%d files", len(paths)), paths), nil
	}
	readFile := func(_ context.Context, _ *tools.Invocation, p ReadParams) (tools.Result[string], error) {
		body, ok := files[p.Path]
		if !ok {
			return tools.Failed[string]("no such file: " + p.Path + "; call list_files first"), nil
		}
		return tools.OK(p.Path, body).WithEvents(FileRead{Path: p.Path}), nil
	}
	runLinter := func(_ context.Context, _ *tools.Invocation, p LintParams) (tools.Result[string], error) {
		return tools.OK("no lint errors in "+p.Path, ""), nil
	}
	return prompt.New("examples", "review",
		prompt.Markdown[prompt.NoParams]("Role", `
			You review small repositories.
			Be specific and brief.`),
		prompt.Markdown[RepoParams]("Repository", `
			You are reviewing {{ .Name }}. Call list_files to see its files.`,
			prompt.WithTool(tools.New("list_files", "List the repository's files.", listFiles, tools.ConcurrentSafe())),
		),
		prompt.Markdown[ReviewParams]("Review", `
			Focus on {{ .Focus }}. Read the files you need with read_file.`,
			prompt.WithTool(tools.New("read_file", "Read one file of the repository.", readFile, tools.ConcurrentSafe())),
			prompt.WithChildren(
				prompt.Markdown[ReviewParams]("Strict Mode", "Run run_linter on every Go file.",
					prompt.WithEnabled(func(p ReviewParams) bool { return p.Strict }),
					prompt.WithTool(tools.New("run_linter", "Lint one Go file.", runLinter)),
				),
			),
		),
		prompt.WithOutput[Report](),
	)
}

// newModel scripts the model's side of the review: list the files, read
// two of them in one turn, then answer with the report.
func newModel() *scripted.Model {
	return scripted.New(
		scripted.ToolCall("list_files", `{}`),
		scripted.ToolCalls(
			model.ToolCall{Name: "read_file", Arguments: `{"path":"README.md"}`},
			model.ToolCall{Name: "read_file", Arguments: `{"path":"cmd/demo.go"}`},
		),
		scripted.JSON(Report{
			Summary:  "One typo in the program's output.",
			Findings: []Finding{{File: "cmd/demo.go", Comment: `"helo" should be "hello".`}},
		}),
	)
}

// run renders the prompt, prints it, evaluates it once and prints the
// typed output.
func run(w io.Writer) error {
	p, err := newPrompt()
	if err != nil {
		return err
	}
	params := []any{RepoParams{Name: "demo"}, ReviewParams{Focus: "typos"}} // Strict is off
	r, err := p.Render(params...)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "=== rendered prompt")
	fmt.Fprintln(w, r.Text)
	fmt.Fprintln(w, "=== tools")
	for t := range r.Tools.All() {
		fmt.Fprintf(w, "%s: %s\n", t.Spec().Name, t.Spec().Description)
	}
	strict, err := p.Render(RepoParams{Name: "demo"}, ReviewParams{Focus: "typos", Strict: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "with Strict on: %s\n", strings.Join(strict.Tools.Names(), ", "))

	s, err := session.New()
	if err != nil {
		return err
	}
	defer s.Close()
	m := newModel()
	resp, err := runner.Evaluate(context.Background(), runner.Request{
		Prompt:      p,
		Params:      params,
		Session:     s,
		UserMessage: "Review the repository.",
		Model:       m,
		ModelName:   "scripted",
	})
	if err != nil {
		return err
	}
	if err := m.Verify(); err != nil {
		return err
	}
	report, err := runner.Output[Report](resp)
	if err != nil {
		return err
	}
	var read []string
	for e := range session.All[FileRead](s) {
		read = append(read, e.Path)
	}
	fmt.Fprintln(w, "=== evaluation")
	fmt.Fprintf(w, "turns: %d, tool calls: %d, tools used: %s\n", resp.Turns, resp.ToolCalls, strings.Join(resp.ToolsUsed, ", "))
	fmt.Fprintf(w, "files read: %s\n", strings.Join(read, ", "))
	fmt.Fprintf(w, "summary: %s\n", report.Summary)
	for _, f := range report.Findings {
		fmt.Fprintf(w, "finding: %s: %s\n", f.File, f.Comment)
	}
	return nil
}
