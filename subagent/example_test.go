package subagent_test

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

func ExampleEngine_Run() {
	ctx := context.Background()
	parent, _ := session.New()
	defer parent.Close()
	_ = parent.Dispatch(ctx, Note{"the parent's notes"})

	child, _ := prompt.New("agents", "summarizer", prompt.Markdown[prompt.NoParams]("Role", "You summarize notes."))
	engine := subagent.New(subagent.WithMaxConcurrent(2))
	out, err := engine.Run(ctx, subagent.Spec{
		Name:        "agents/summarizer",
		Parent:      parent, // forked from a snapshot of it
		Prompt:      child,
		UserMessage: "Summarize the notes.",
		Model:       scripted.New(scripted.Text("One note, about the parent.")),
		Delegation:  []string{"root"},
	})
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
