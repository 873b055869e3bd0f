package journal_test

import (
	"context"
	"fmt"
	"log"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// Note is an event of the example.
type Note struct{ Text string }

// A session kept in a store as it commits, and opened again — as a new
// process would — with its state.
func Example() {
	ctx := context.Background()
	st := store.NewMemory() // or sqlite.Open(ctx, path), postgres.Open(ctx, dsn)
	j := journal.New(st, journal.Options{})
	defer j.Close()
	notes := session.Reducers{Key: "example.com/notes", Rules: []session.Rule{session.Keep[Note]()}}

	reg := serde.NewRegistry()
	s, err := session.New(session.WithID("chat-7"), session.WithRegistry(reg), session.WithJournal(j))
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Install(ctx, notes); err != nil {
		log.Fatal(err)
	}
	if err := s.Dispatch(ctx, Note{"hello"}, Note{"again"}); err != nil { // stored when it returns nil
		log.Fatal(err)
	}
	_ = s.Close()

	again, err := j.Open(ctx, "chat-7", reg, []session.Reducers{notes})
	if err != nil {
		log.Fatal(err)
	}
	defer again.Close()
	for n := range session.All[Note](again) {
		fmt.Println(n.Text)
	}
	// Output:
	// hello
	// again
}
