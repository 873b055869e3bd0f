package session_test

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// A plan step and the event that records its progress.
type Step struct {
	ID     string
	Status string
}

func Example() {
	ctx := context.Background()
	s, _ := session.New()
	defer s.Close()

	// Steps are upserted by id: a new status replaces the old one in place.
	_ = session.Register(s, session.UpsertBy(func(st Step) string { return st.ID }))
	_ = s.Dispatch(ctx, Step{"S001", "pending"}, Step{"S002", "pending"})
	_ = s.Dispatch(ctx, Step{"S001", "done"})

	for st := range session.All[Step](s) {
		fmt.Println(st.ID, st.Status)
	}
	// Output:
	// S001 done
	// S002 pending
}

func ExampleSession_Fork() {
	ctx := context.Background()
	parent, _ := session.New()
	defer parent.Close()
	_ = parent.Dispatch(ctx, Note{"shared context"})

	// The child starts from the parent's state, in O(1)...
	child, _ := parent.Fork()
	_ = child.Dispatch(ctx, Note{"child's own work"})

	// ...and the two never see each other's dispatches.
	fmt.Println("parent:", session.Len[Note](parent))
	fmt.Println("child:", session.Len[Note](child))
	_ = child.Close()
	// Output:
	// parent: 1
	// child: 2
}

func ExampleMarshalSnapshot() {
	ctx := context.Background()
	reg := serde.NewRegistry()
	_ = serde.Register[Note](reg, "example.Note")
	s, _ := session.New(session.WithRegistry(reg), session.WithID("demo"))
	defer s.Close()
	_ = s.Dispatch(ctx, Note{"hello"})

	data, _ := session.MarshalSnapshot(s.Snapshot(), reg)
	snap, err := session.UnmarshalSnapshot(data, reg)
	fmt.Println(err, session.SliceOfSnapshot[Note](snap).Values())

	restored, _ := session.New(session.WithRegistry(reg), session.WithSnapshot(snap))
	defer restored.Close()
	fmt.Println(session.Len[Note](restored))
	// Output:
	// <nil> [{hello}]
	// 1
}
