package offshoot_test

import (
	"context"
	"fmt"
	"log"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// The simple case: a main agent with one agent to delegate to, on a
// scripted model (any model.Model works: model/openai for a real one).
func Example() {
	m := scripted.New(
		scripted.When(scripted.SystemContains("You review code"), scripted.Text("login.go never checks the password.")),
		scripted.ToolCall("Task", `{"subagent_type":"reviewer","description":"Review the auth module","prompt":"Review the authentication module."}`),
		scripted.Text("The reviewer found one problem: login.go never checks the password."),
	)

	client, err := offshoot.NewClient(offshoot.Options{
		Model: m,
		Agents: map[string]agents.Definition{
			"reviewer": {Description: "Code review specialist", Prompt: "You review code for quality."},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	for msg := range client.Query(context.Background(), "Review the authentication module") {
		if r, ok := msg.(offshoot.ResultMessage); ok {
			fmt.Println(r.Text)
		}
	}
	// Output:
	// The reviewer found one problem: login.go never checks the password.
}
