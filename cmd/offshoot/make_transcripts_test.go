package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/runner"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// makeTranscripts runs three subagents on an engine that keeps
// transcripts in DIR: "make-transcripts DIR". On a scripted model, with a
// fixed clock and ids: a1, a reviewer forked from the session root-1 that
// reads a file of forty lines and answers; a2, a fresh explore agent; a3,
// a fresh summary agent whose model fails.
func makeTranscripts() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: make-transcripts DIR")
		os.Exit(2)
	}
	if err := writeTranscripts(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "make-transcripts:", err)
		os.Exit(1)
	}
}

func writeTranscripts(dir string) error {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	ids := 0
	engine := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), Clock: clock, NewID: func() string { ids++; return fmt.Sprintf("a%d", ids) }})
	parent, err := session.New(session.WithID("root-1"))
	if err != nil {
		return err
	}
	defer func() { _ = parent.Close() }()
	files, err := vfs.Tools(vfs.Options{})
	if err != nil {
		return err
	}
	if err := files.Install(context.Background(), parent); err != nil {
		return err
	}
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("line %d of the notes", i))
	}
	if err := parent.Dispatch(ctx, vfs.FileWritten{Path: "notes.md", Content: strings.Join(lines, "\n") + "\n", Version: 1}); err != nil {
		return err
	}
	role := func(name, text string) (*prompt.Prompt, error) {
		return prompt.New("agents", name, prompt.Markdown[prompt.NoParams]("Role", text))
	}
	reviewer, err := role("reviewer", "You review notes.")
	if err != nil {
		return err
	}
	explore, err := role("explore", "You explore.")
	if err != nil {
		return err
	}
	summary, err := role("summary", "You summarize.")
	if err != nil {
		return err
	}
	runs := []subagent.Spec{{
		Name: "agents/reviewer", Description: "Review the notes",
		Request: runner.Request{
			Prompt: reviewer, Tools: files, ModelName: "main", UserMessage: "Review notes.md.",
			Model: scripted.New(scripted.ToolCall("read_file", `{"file_path":"notes.md"}`),
				scripted.Text("The notes are fine.\nNothing to change.")),
		},
	}, {
		Name: "explore", Description: "Find the entry point", Mode: subagent.Fresh,
		Request: runner.Request{
			Prompt: explore, ModelName: "light", UserMessage: "Where does the program start?",
			Model: scripted.New(scripted.Text("In main.go.")),
		},
	}, {
		Name: "summary", Description: "Summarize the run", Mode: subagent.Fresh,
		Request: runner.Request{
			Prompt: summary, ModelName: "light", UserMessage: "Summarize.",
			Model: scripted.New(scripted.Fail(&model.APIError{StatusCode: 503, Message: "the server is down"})),
		},
	}}
	for i, spec := range runs {
		spec.Parent = parent
		_, err := engine.Run(ctx, spec)
		if i < 2 && err != nil {
			return err
		}
		if i == 2 && err == nil {
			return errors.New("the summary agent was meant to fail")
		}
	}
	return nil
}

// backdate sets the modification time of files back by an age:
// "backdate AGE GLOB...", AGE a Go duration.
func backdate() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: backdate AGE GLOB...")
		os.Exit(2)
	}
	age, err := time.ParseDuration(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "backdate:", err)
		os.Exit(2)
	}
	then := time.Now().Add(-age)
	for _, pattern := range os.Args[2:] {
		paths, err := filepath.Glob(pattern)
		if err == nil && len(paths) == 0 {
			err = fmt.Errorf("no file matches %s", pattern)
		}
		for _, p := range paths {
			if err == nil {
				err = os.Chtimes(p, then, then)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "backdate:", err)
			os.Exit(1)
		}
	}
}
