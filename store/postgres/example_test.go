package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/postgres"
)

// A store shared by processes: each opens it with the same DSN; a writer
// that appends after another one did gets store.ErrConflict, and reloads.
// (It needs a server, so it is not run as a test.)
func Example() {
	ctx := context.Background()
	// DATABASE_URL as postgres://host/db?offshoot_schema=agents puts the
	// store's tables in the schema agents ("offshoot" by default).
	st, err := postgres.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	if err := st.Create(ctx, store.Header{ID: "chat-1", Tags: map[string]string{"user": "ada"}}); err != nil {
		log.Fatal(err)
	}
	turn := store.Batch{Seq: 1, Time: time.Now(), Events: []store.Event{
		{Type: "runner.ConversationMessage", Data: json.RawMessage(`{"role":"user","content":"hello"}`)},
		{Type: "runner.ConversationMessage", Data: json.RawMessage(`{"role":"assistant","content":"hi"}`)},
	}}
	if err := st.Append(ctx, "chat-1", turn); err != nil {
		log.Fatal(err) // errors.Is(err, store.ErrConflict): another process appended first
	}
	for b, err := range st.Batches(ctx, "chat-1", 0, 0) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.Seq, len(b.Events))
	}
}
