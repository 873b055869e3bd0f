package scripted_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// A script for an agent that reads a file and then answers, plus a route
// for a subagent recognized by its system prompt: the subagent's request
// gets its own answer whenever it arrives.
func ExampleNew() {
	m := scripted.New(
		scripted.When(scripted.SystemContains("You summarize"), scripted.Text("A short summary.")),
		scripted.ToolCall("read_file", `{"path":"README.md"}`),
		scripted.Text("The README explains how to run the demo."),
	)
	ctx := context.Background()

	req := &model.Request{Messages: []model.Message{
		model.SystemMessage("You are a helpful agent."),
		model.UserMessage("What does the README say?"),
	}}
	resp, _ := m.Generate(ctx, req)
	call := resp.Message.ToolCalls[0]
	fmt.Println("call:", call.ID, call.Name, call.Arguments)

	child, _ := m.Generate(ctx, &model.Request{Messages: []model.Message{
		model.SystemMessage("You summarize files."),
		model.UserMessage("Summarize README.md"),
	}})
	fmt.Println("child:", child.Message.Content)

	req.Messages = append(req.Messages, resp.Message, model.ToolMessage(call.ID, call.Name, "# Demo\nRun go run ./cmd/offshoot demo"))
	resp, _ = m.Generate(ctx, req)
	fmt.Println("answer:", resp.Message.Content, "| finish:", resp.FinishReason)

	_, err := m.Generate(ctx, req)
	fmt.Println("unexpected:", err != nil)
	fmt.Println("played out:", m.Verify() == nil, "| calls:", len(m.Calls()))
	// Output:
	// call: call_2_0 read_file {"path":"README.md"}
	// child: A short summary.
	// answer: The README explains how to run the demo. | finish: stop
	// unexpected: true
	// played out: true | calls: 4
}

// Recording a model's answers to a cassette, then replaying them: the
// replay matches requests by content, not by position.
func ExampleRecord() {
	var cassette bytes.Buffer
	rec := scripted.Record(scripted.New(
		scripted.When(scripted.LastUserContains("ping"), scripted.Text("pong")),
		scripted.When(scripted.LastUserContains("marco"), scripted.Text("polo")),
	), &cassette)
	ctx := context.Background()
	for _, q := range []string{"ping", "marco"} {
		_, _ = rec.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage(q)}})
	}

	player, _ := scripted.Replay(&cassette)
	for _, q := range []string{"marco", "ping", "hello"} {
		resp, err := player.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage(q)}})
		if err != nil {
			fmt.Println(q, "→ not recorded")
			continue
		}
		fmt.Println(q, "→", resp.Message.Content)
	}
	// Output:
	// marco → polo
	// ping → pong
	// hello → not recorded
}

// Streaming: model.Stream delivers a scripted answer word by word (or in
// pieces of SetChunking's size), then returns the complete response, as a
// streaming provider would.
func ExampleModel_Stream() {
	m := scripted.New(
		scripted.Text("It is sunny in Paris."),
		scripted.ToolCall("get_weather", `{"city": "Paris"}`),
	)
	req := &model.Request{Messages: []model.Message{model.UserMessage("Weather?")}}
	show := func(d model.Delta) error {
		if d.ToolCall != nil {
			fmt.Printf("call %d %q %q %q\n", d.ToolCall.Index, d.ToolCall.ID, d.ToolCall.Name, d.ToolCall.Arguments)
			return nil
		}
		fmt.Printf("text %q\n", d.Text)
		return nil
	}
	resp, _ := model.Stream(context.Background(), m, req, show)
	fmt.Println("answer:", resp.Message.Content)

	m.SetChunking(scripted.Chunking{Size: 8})
	resp, _ = model.Stream(context.Background(), m, req, show)
	fmt.Println("finish:", resp.FinishReason)
	// Output:
	// text "It"
	// text " is"
	// text " sunny"
	// text " in"
	// text " Paris."
	// answer: It is sunny in Paris.
	// call 0 "call_1_0" "get_weather" "{\"city\":"
	// call 0 "" "" " \"Paris\""
	// call 0 "" "" "}"
	// finish: tool_calls
}
