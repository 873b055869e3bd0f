package runner_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// ConfirmParams are the arguments of the example's confirm tool.
type ConfirmParams struct {
	Question string `json:"question" validate:"required"`
}

// A tool that needs a person's answer parks the evaluation with
// runner.Wait; an evaluation that continues it with the answer goes on
// exactly there, the answer being the tool call's result.
func ExampleWait() {
	ctx := context.Background()
	confirm, _ := tools.New("confirm", "Ask the user to confirm.", func(_ context.Context, _ *tools.Invocation, p ConfirmParams) (tools.Result[struct{}], error) {
		return tools.Result[struct{}]{}, runner.Wait(p.Question)
	})
	p, _ := prompt.New("example", "deployer", prompt.Markdown[TripParams]("Deploy", "You deploy the {{ .City }} site.", prompt.WithTools(confirm)))
	params := []any{TripParams{City: "Lisbon"}}
	s, _ := session.New()
	defer s.Close()
	m := scripted.New(
		scripted.ToolCall("confirm", `{"question":"Deploy to production?"}`),
		scripted.Text("Deployed."),
	)

	_, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Params: params, Session: s, Model: m, UserMessage: "Ship it."})
	w, waits := errors.AsType[*runner.Waiting](err)
	fmt.Println(waits, w.Question)
	end, _ := session.Latest[runner.PromptExecuted](s)
	fmt.Println(end.Status)

	// Later, maybe in another process, on the session restored from its store:
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Params: params, Session: s, Model: m, Continue: w.Evaluation, Answer: "Yes."})
	fmt.Println(resp.Text, err)
	// Output:
	// true Deploy to production?
	// waiting
	// Deployed. <nil>
}
