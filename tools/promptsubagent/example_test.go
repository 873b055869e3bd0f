package promptsubagent_test

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func ExampleSection() {
	ctx := context.Background()

	// The child prompt, looked up by (namespace, key) when the model dispatches.
	reg := prompt.NewRegistry()
	researcher, _ := prompt.New("agents", "researcher", prompt.Markdown[prompt.NoParams]("Researcher", "You dig into one question."))
	_ = reg.Register(researcher)

	// The parent offers the VFS and dispatch_subagent.
	parent, _ := prompt.New("demo", "lead",
		prompt.Markdown[prompt.NoParams]("Lead", "You lead the work."),
		vfs.Section(vfs.Options{}),
		promptsubagent.Section(reg, subagent.New(subagent.Options{}), promptsubagent.Options{}),
	)
	s, _ := session.New()
	defer s.Close()

	m := scripted.New(
		// The child, forked from the parent's session, writes a note and reports.
		scripted.When(scripted.SystemContains("You dig into one question."),
			scripted.ToolCall("write_file", `{"file_path":"notes/answer.md","content":"42"}`),
			scripted.Text("The answer is 42 (notes/answer.md).")),
		// The parent dispatches, then answers.
		scripted.ToolCall("dispatch_subagent", `{"mode":"ad_hoc","prompt_ns":"agents","prompt_key":"researcher","instructions":"Find the answer."}`),
		scripted.Text("Done: the answer is 42."),
	)
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: s, Model: m, UserMessage: "What is the answer?"})
	fmt.Println(err, resp.Text)

	ti, _ := session.Latest[runner.ToolInvoked](s)
	fmt.Println(ti.Result)
	// The child's file was copied into the parent with the tool's result.
	f, _ := vfs.Files(s).Get("notes/answer.md")
	fmt.Println("notes/answer.md in the parent:", f.Content)
	// Output:
	// <nil> Done: the answer is 42.
	// The answer is 42 (notes/answer.md).
	//
	// {"prompt_ns":"agents","prompt_key":"researcher","message_summary":"The answer is 42 (notes/answer.md).","artifacts":["notes/answer.md"],"tools_used":["write_file"]}
	// notes/answer.md in the parent: 42
}
