package runner_test

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// TripParams are the params of the example prompt's section.
type TripParams struct {
	City string `validate:"required"`
}

// ForecastParams are the arguments of the get_forecast tool.
type ForecastParams struct {
	City string `json:"city" validate:"required"`
}

// Forecast is the get_forecast tool's result value.
type Forecast struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
	Sky   string `json:"sky"`
}

// ForecastChecked is the event the get_forecast tool returns; the runner
// dispatches it with its ToolInvoked record of the call.
type ForecastChecked struct{ City string }

// An evaluation in which the model calls a typed tool, reads its result and
// answers. The scripted model plays the model's part, so the run is
// deterministic and offline.
func Example() {
	getForecast, err := tools.New("get_forecast", "Get tomorrow's forecast for a city.",
		func(_ context.Context, _ *tools.Invocation, p ForecastParams) (tools.Result[Forecast], error) {
			return tools.OK("forecast for "+p.City, Forecast{City: p.City, TempC: 24, Sky: "sunny"}).
				WithEvents(ForecastChecked{City: p.City}), nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := prompt.New("travel", "packing",
		prompt.Markdown[TripParams]("Trip", "Tell the traveller what to pack for {{ .City }}.",
			prompt.WithTools(getForecast)),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := scripted.New(
		scripted.ToolCall("get_forecast", `{"city":"Lisbon"}`),
		scripted.Text("Pack sunglasses: tomorrow is sunny and 24°C in Lisbon."),
	)
	s, err := session.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	resp, err := runner.Evaluate(context.Background(), runner.Request{
		Prompt:      p,
		Params:      []any{TripParams{City: "Lisbon"}},
		Session:     s,
		UserMessage: "What should I pack?",
		Model:       m,
		ModelName:   "main",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("text:", resp.Text)
	fmt.Println("turns:", resp.Turns, "tool calls:", resp.ToolCalls, "tools used:", resp.ToolsUsed)
	for _, msg := range resp.Messages {
		if msg.Role == model.RoleTool {
			fmt.Printf("tool message (%s): %q\n", msg.ToolCallID, msg.Content)
		}
	}
	for ti := range session.All[runner.ToolInvoked](s) {
		fmt.Println("recorded:", ti.Name, string(ti.Arguments), "success:", ti.Success)
	}
	fmt.Println("events:", session.Get[ForecastChecked](s).Values())
	fmt.Println("model calls:", session.Len[runner.ModelCalled](s), "executed:", session.Len[runner.PromptExecuted](s))
	// Output:
	// text: Pack sunglasses: tomorrow is sunny and 24°C in Lisbon.
	// turns: 2 tool calls: 1 tools used: [get_forecast]
	// tool message (call_2_0): "forecast for Lisbon\n\n{\"city\":\"Lisbon\",\"temp_c\":24,\"sky\":\"sunny\"}"
	// recorded: get_forecast {"city":"Lisbon"} success: true
	// events: [{Lisbon}]
	// model calls: 2 executed: 1
}

// Packing is the example's structured output.
type Packing struct {
	Items  []string `json:"items" validate:"min=1"`
	Reason string   `json:"reason" validate:"required"`
}

// Structured output: the prompt declares its output type with
// prompt.WithOutput, the runner asks the model for it (strict JSON Schema)
// and parses the final answer, and runner.Output returns it typed.
func ExampleOutput() {
	p, err := prompt.New("travel", "list",
		prompt.Markdown[TripParams]("Trip", "List what to pack for {{ .City }}."),
		prompt.WithOutput[Packing](),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := scripted.New(scripted.JSON(Packing{Items: []string{"sunglasses", "sandals"}, Reason: "sunny, 24°C"}))
	s, err := session.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	resp, err := runner.Evaluate(context.Background(), runner.Request{
		Prompt: p, Params: []any{TripParams{City: "Lisbon"}}, Session: s, Model: m,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	packing, err := runner.Output[Packing](resp)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", packing)
	out := m.Calls()[0].Request.Output
	fmt.Println("asked for:", out.Name, "strict:", out.Strict)

	_, err = runner.Output[Forecast](resp)
	fmt.Println(err)
	// Output:
	// {Items:[sunglasses sandals] Reason:sunny, 24°C}
	// asked for: travel_list strict: true
	// runner: the structured output is a runner_test.Packing, not a runner_test.Forecast
}

// An evaluation rendered in one place and run in another: Render renders
// the prompt with its params once, where they are; the rendered prompt is
// plain text and tool names, and Evaluate runs it as it is (a subagent on
// a remote worker runs so). Recorded reads the response back from what
// the session recorded.
func ExampleRender() {
	p, err := prompt.New("travel", "advice",
		prompt.Markdown[TripParams]("Trip", "Advise a traveller going to {{ .City }}."))
	if err != nil {
		fmt.Println(err)
		return
	}
	rendered, err := runner.Render(runner.Request{Prompt: p, Params: []any{TripParams{City: "Oslo"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", rendered.Text)

	s, err := session.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	resp, err := runner.Evaluate(context.Background(), runner.Request{Rendered: rendered, Session: s,
		Model: scripted.New(scripted.Text("Bring a warm coat.")), ModelName: "main"})
	if err != nil {
		fmt.Println(err)
		return
	}
	read, err := runner.Recorded(s.Snapshot(), resp.Evaluation, rendered)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(read.Text, read.Turns)
	// Output:
	// "## 1. Trip\n\nAdvise a traveller going to Oslo."
	// Bring a warm coat. 1
}
