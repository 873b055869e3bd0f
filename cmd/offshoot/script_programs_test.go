package main

import (
	"context"
	"fmt"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// fakeEditor is the editor of the scripts: "fake-editor FILE" replaces
// FILE with the file $FAKE_EDITOR_CONTENT names, and exits with
// $FAKE_EDITOR_EXIT when it is set.
func fakeEditor() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fake-editor FILE")
		os.Exit(2)
	}
	if src := os.Getenv("FAKE_EDITOR_CONTENT"); src != "" {
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(os.Args[1], data, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if code := os.Getenv("FAKE_EDITOR_EXIT"); code != "" {
		var n int
		fmt.Sscan(code, &n)
		os.Exit(n)
	}
}

// mcpNotes is an MCP server over standard input and output with two
// tools, search and add; "mcp-notes -fail" exits at once instead, with a
// reason on standard error.
func mcpNotes() {
	if len(os.Args) > 1 && os.Args[1] == "-fail" {
		fmt.Fprintln(os.Stderr, "cannot open the notes database")
		os.Exit(1)
	}
	type searchArgs struct {
		Query string `json:"query"`
	}
	type addArgs struct {
		Text string `json:"text"`
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "search", Description: "Search the notes."},
		func(context.Context, *sdk.CallToolRequest, searchArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no notes"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add a note."},
		func(context.Context, *sdk.CallToolRequest, addArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "added"}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Note is a record of a program's own, which offshoot does not know.
type Note struct {
	Text string `json:"text"`
}

// makeSnapshot writes the snapshot of a small run: "make-snapshot FILE
// [VARIANT]". The run writes a file and sets up a plan through the tools,
// on a scripted model, with a fixed clock and ids. Variant "later" goes
// on to mark the first step done and write a second file; "foreign" adds a
// record of a type offshoot does not know.
func makeSnapshot() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: make-snapshot FILE [later|foreign]")
		os.Exit(2)
	}
	variant := ""
	if len(os.Args) == 3 {
		variant = os.Args[2]
	}
	if err := writeSnapshot(os.Args[1], variant); err != nil {
		fmt.Fprintln(os.Stderr, "make-snapshot:", err)
		os.Exit(1)
	}
}

func writeSnapshot(path, variant string) error {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	ids := 0
	reg := serde.NewRegistry()
	s, err := session.New(session.WithBus(bus.New(bus.WithClock(clock))), session.WithID("run-1"),
		session.WithRegistry(reg), session.WithTags(map[string]string{"example": "notes"}),
		session.WithIDGenerator(func() string { ids++; return fmt.Sprintf("e%d", ids) }))
	if err != nil {
		return err
	}
	defer func() { _ = s.Close() }()
	p, err := prompt.New("example", "planner",
		prompt.Markdown[prompt.NoParams]("Planner", "You plan the notes work and keep notes in files."),
		vfs.Section(vfs.Options{}), planning.Section(planning.Options{}))
	if err != nil {
		return err
	}
	turns := []scripted.Turn{
		scripted.ToolCall("write_file", `{"file_path": "notes/todo.md", "content": "# To do\n\n- write the parser\n- test it\n"}`),
		scripted.ToolCall("planning_setup_plan", `{"objective": "Ship the parser", "initial_steps": [{"title": "Write the parser"}, {"title": "Test the parser"}]}`),
		scripted.Text("The plan is set up and the notes are in notes/todo.md.\nNext: write the parser."),
	}
	if variant == "later" {
		turns = append(turns[:2],
			scripted.ToolCall("planning_mark_step", `{"step_id": "S001", "status": "done", "note": "parser written"}`),
			scripted.ToolCall("write_file", `{"file_path": "parser.go", "content": "package parser\n"}`),
			scripted.Text("The parser is written."))
	}
	if _, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: scripted.New(turns...), ModelName: "main",
		UserMessage: "Plan the parser work.", Clock: clock}); err != nil {
		return err
	}
	if variant == "foreign" {
		if err := serde.Register[Note](reg, "example.Note"); err != nil {
			return err
		}
		if err := s.Dispatch(ctx, Note{Text: "remember the tests"}); err != nil {
			return err
		}
	}
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
