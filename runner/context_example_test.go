package runner_test

import (
	"context"
	"fmt"
	"log"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// A conversation of three questions, compacted by hand: the next request
// sends the system message, the summary and the last two turns, while
// Conversation still returns every message.
func ExampleCompact() {
	ctx := context.Background()
	s, err := session.New()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := prompt.New("demo", "chat", prompt.Markdown[prompt.NoParams]("Role", "You note facts."))
	if err != nil {
		log.Fatal(err)
	}
	m := scripted.New(
		scripted.When(scripted.SystemContains("You write the summary"), scripted.Text("The user said the sky is blue.")),
		scripted.Repeat(scripted.Text("Noted.")),
	)
	eval := ""
	for _, q := range []string{"The sky is blue.", "Grass is green.", "Snow is white."} {
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: q, Continue: eval,
			Context: runner.ContextOptions{Window: 32_000, ClearToolResults: 5}})
		if err != nil {
			log.Fatal(err)
		}
		eval = resp.Evaluation
	}
	done, err := runner.Compact(ctx, runner.Request{Session: s, Continue: eval, Model: m}, "keep the colours")
	if err != nil {
		log.Fatal(err)
	}
	all := runner.Conversation(s.Snapshot(), eval)
	sent := runner.AsSent(s.Snapshot(), eval, all)
	fmt.Println(done.Summary)
	fmt.Println(len(all), "messages recorded,", len(sent), "sent")
	// Output:
	// The user said the sky is blue.
	// 7 messages recorded, 6 sent
}
