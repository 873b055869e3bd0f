package offshoot_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/store"
)

// A run that asks a person a question no one can answer now parks: the
// query ends waiting, and the process may exit. Later — in another
// process, on the same store and session id — Client.Answer continues it
// exactly there.
func ExampleClient_Answer() {
	ctx := context.Background()
	st := store.NewMemory() // a SQLite file or PostgreSQL in a real program
	m := scripted.New(
		scripted.ToolCall("AskUserQuestion", `{"questions":[{"question":"Which database?","header":"Database","options":[{"label":"SQLite"},{"label":"PostgreSQL"}]}]}`),
		scripted.Text("Setting up SQLite."),
	)
	opts := offshoot.Options{
		Model: m, Store: st, SessionID: "setup-1",
		// No one to ask now (a service, a pipe): wait for the answer.
		AskUser: func(_ context.Context, question string) (string, error) { return "", runner.Wait(question) },
	}

	client, err := offshoot.NewClient(opts)
	if err != nil {
		log.Fatal(err)
	}
	for msg := range client.Query(ctx, "Set up the database.") {
		if r, ok := msg.(offshoot.ResultMessage); ok {
			if w, waits := errors.AsType[*runner.Waiting](r.Err); waits {
				fmt.Printf("waiting for an answer to:\n%s\n", w.Question)
			}
		}
	}
	client.Close()

	// Later: a new client on the stored session.
	client, err = offshoot.NewClient(opts)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if w, waits := client.Waiting(); waits {
		fmt.Println("still waiting on", w.Tool)
	}
	for msg := range client.Answer(ctx, "SQLite") {
		if r, ok := msg.(offshoot.ResultMessage); ok {
			fmt.Println(r.Text, r.Err)
		}
	}
	// Output:
	// waiting for an answer to:
	// [Database] Which database?
	//   1. SQLite
	//   2. PostgreSQL
	// still waiting on AskUserQuestion
	// Setting up SQLite. <nil>
}
