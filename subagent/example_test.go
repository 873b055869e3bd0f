package subagent_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

func ExampleEngine_Run() {
	ctx := context.Background()
	parent, _ := session.New()
	defer parent.Close()
	_ = parent.Dispatch(ctx, Note{"the parent's notes"})

	child, _ := prompt.New("agents", "summarizer", prompt.Markdown[prompt.NoParams]("Role", "You summarize notes."))
	engine := subagent.New(subagent.Options{MaxConcurrent: 2})
	out, err := engine.Run(ctx, subagent.Spec{Name: "agents/summarizer", Parent: parent, // forked from a snapshot of it
		Request: runner.Request{Prompt: child, UserMessage: "Summarize the notes.", Model: scripted.New(scripted.Text("One note, about the parent."))}})
	fmt.Println(err)
	fmt.Println(out.Text)
	fmt.Println("the child saw:", session.SliceOfSnapshot[Note](out.Start).Len(), "note")
	fmt.Println("children left open:", len(parent.ChildIDs()))
	// Output:
	// <nil>
	// One note, about the parent.
	// the child saw: 1 note
	// children left open: 0
}

func ExampleEngine_Start() {
	ctx := context.Background()
	parent, _ := session.New()
	defer parent.Close()

	n := 0
	engine := subagent.New(subagent.Options{NewID: func() string { n++; return fmt.Sprintf("task-%d", n) }})
	researcher, _ := prompt.New("agents", "researcher", prompt.Markdown[prompt.NoParams]("Role", "You survey notes."))
	task, err := engine.Start(ctx, subagent.Spec{Name: "researcher", Description: "Survey the notes", Parent: parent, Mode: subagent.Fresh, Request: runner.Request{Prompt: researcher, UserMessage: "Survey the billing notes.", Model: scripted.New(scripted.Text("Three notes, all about billing."))}})
	if err != nil {
		fmt.Println(err)
		return
	}
	note, _ := task.Wait(ctx) // or go on, and read it from the parent's next turn
	fmt.Println(note.Status, "-", note.Summary)

	// The parent's runner adds this to its next model call.
	in, _ := session.Latest[runner.Inbound](parent)
	fmt.Println(strings.Split(in.Text, "\n")[1])
	// Output:
	// completed - Three notes, all about billing.
	// The background task task-1 (Survey the notes, by the researcher agent) has completed.
}

func ExampleStopHook() {
	ctx := context.Background()
	parent, _ := session.New()
	defer parent.Close()

	engine := subagent.New(subagent.Options{StopHooks: []subagent.StopHook{func(_ context.Context, stop subagent.SubagentStop) (string, error) {
		if !strings.Contains(stop.LastMessage, "tests") {
			return "Say whether the tests pass before you finish.", nil // the child goes on
		}
		return "", nil // it may finish
	}}})
	reviewer, _ := prompt.New("agents", "reviewer", prompt.Markdown[prompt.NoParams]("Role", "You review code."))
	out, _ := engine.Run(ctx, subagent.Spec{Name: "reviewer", Parent: parent, Mode: subagent.Fresh, Request: runner.Request{Prompt: reviewer, UserMessage: "Review parse.go.", Model: scripted.New(scripted.Text("parse.go looks fine."), scripted.Text("parse.go looks fine; the tests pass."))}})
	fmt.Println(out.Text)
	// Output:
	// parse.go looks fine; the tests pass.
}

func ExampleEngine_Agent() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "transcripts")
	defer os.RemoveAll(dir)
	parent, _ := session.New(session.WithID("main"))
	defer parent.Close()

	engine := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: func() string { return "reviewer-1" }})
	reviewer, _ := prompt.New("agents", "reviewer", prompt.Markdown[prompt.NoParams]("Role", "You review code."))
	spec := subagent.Spec{Name: "reviewer", Parent: parent, Mode: subagent.Fresh, Request: runner.Request{Prompt: reviewer, ModelName: "light", UserMessage: "Review parse.go.", Model: scripted.New(scripted.Text("One bug, line 12."))}}
	first, _ := engine.Run(ctx, spec)

	// Later: a follow-up to the same agent, with all it read still in its
	// conversation.
	meta, err := engine.Agent(ctx, parent, first.AgentID)
	if err != nil {
		fmt.Println(err)
		return
	}
	spec.Name, spec.Request.ModelName = meta.Type, meta.Model // the same type and model
	spec.Resume, spec.Request.UserMessage = meta.AgentID, "Fix it."
	spec.Request.Model = scripted.New(scripted.Text("Fixed line 12."))
	again, _ := engine.Run(ctx, spec)
	fmt.Println(again.AgentID, "-", again.Text)

	tr, _ := transcript.Dir(dir).Read("reviewer-1")
	for _, m := range tr.Messages {
		fmt.Println(m.Role+":", m.Content)
	}
	_, err = engine.Agent(ctx, parent, "nobody")
	fmt.Println(err)
	// Output:
	// reviewer-1 - Fixed line 12.
	// user: Review parse.go.
	// assistant: One bug, line 12.
	// user: Fix it.
	// assistant: Fixed line 12.
	// No agent found with ID: nobody
}
