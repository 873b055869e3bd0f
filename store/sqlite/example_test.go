package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

func Example() {
	dir, err := os.MkdirTemp("", "sessions")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A program keeps its sessions in one file, such as
	// .offshoot/sessions.db; Open creates it.
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, ".offshoot", "sessions.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()

	if err := st.Create(ctx, store.Header{ID: "chat", Tags: map[string]string{"user": "ada"}}); err != nil {
		log.Fatal(err)
	}
	// Each committed dispatch is a batch, appended after the seq it follows.
	question := store.Event{Type: "example.Question", Data: json.RawMessage(`{"text":"How far is the moon?"}`)}
	answer := store.Event{Type: "example.Answer", Data: json.RawMessage(`{"text":"About 384,400 km."}`)}
	for _, b := range []store.Batch{
		{Seq: 1, Time: time.Now(), Events: []store.Event{question}},
		{Seq: 2, Time: time.Now(), Events: []store.Event{answer}},
	} {
		if err := st.Append(ctx, "chat", b); err != nil {
			log.Fatal(err)
		}
	}
	// A writer whose view is stale (another process appended first) is
	// refused, and writes nothing.
	err = st.Append(ctx, "chat", store.Batch{Seq: 2, Events: []store.Event{answer}})
	fmt.Println("stale writer refused:", errors.Is(err, store.ErrConflict))

	for b, err := range st.Batches(ctx, "chat", 0, 0) {
		if err != nil {
			log.Fatal(err)
		}
		for i, e := range b.Events {
			fmt.Println(b.Seq+uint64(i), e.Type, string(e.Data))
		}
	}

	// A fork at seq 1 stores one row; its log is the parent's up to seq 1.
	if err := st.Create(ctx, store.Header{ID: "retry", Parent: "chat", ForkSeq: 1}); err != nil {
		log.Fatal(err)
	}
	h, err := st.Header(ctx, "retry")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fork of", h.Parent, "ends at seq", h.Seq)
	fmt.Println("file sound:", st.Check(ctx) == nil)
	// Output:
	// stale writer refused: true
	// 1 example.Question {"text":"How far is the moon?"}
	// 2 example.Answer {"text":"About 384,400 km."}
	// fork of chat ends at seq 1
	// file sound: true
}
