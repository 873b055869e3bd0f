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

// A deposit, and the balance that deposits fold into.
type (
	Deposit struct{ Amount int }
	Balance struct{ Total int }
)

// A reducer of your own folds an event into the slice of another type. It
// is pure: it returns the new slice (SliceOf makes one) and never writes
// to the session.
func ExampleReducer() {
	ctx := context.Background()
	s, _ := session.New()
	defer s.Close()

	var deposit session.Reducer[Deposit, Balance] = func(_ session.ReducerContext, sl session.Slice[Balance], d Deposit) (session.Slice[Balance], error) {
		if d.Amount <= 0 {
			return sl, fmt.Errorf("a deposit must be positive, not %d", d.Amount)
		}
		cur, _ := sl.Latest()
		return session.SliceOf(Balance{cur.Total + d.Amount}), nil
	}
	_ = session.Register(s, deposit)
	_ = s.Dispatch(ctx, Deposit{30}, Deposit{12})
	err := s.Dispatch(ctx, Deposit{-5})

	b, _ := session.Latest[Balance](s)
	fmt.Println(b.Total)
	fmt.Println(err != nil, session.Len[Deposit](s))
	// Output:
	// 42
	// true 0
}

// A tag, a chat message, and a user's presence.
type (
	Tag      string
	Said     struct{ Who, Text string }
	Presence struct{ User, Where string }
)

// The built-in reducers fold an event into the slice of its own type.
func ExampleAppend() {
	ctx := context.Background()
	s, _ := session.New()
	defer s.Close()

	// Append keeps one of each comparable value; AppendFunc does the same
	// with an equality of your own.
	_ = session.Register(s, session.Append[Tag])
	_ = session.Register(s, session.AppendFunc(func(a, b Said) bool { return a.Text == b.Text }))
	// ReplaceLatestBy keeps one value per key, the latest last.
	_ = session.Register(s, session.ReplaceLatestBy(func(p Presence) string { return p.User }))

	_ = s.Dispatch(ctx, Tag("go"), Tag("docs"), Tag("go"))
	_ = s.Dispatch(ctx, Said{"ann", "hi"}, Said{"bob", "hi"}, Said{"bob", "bye"})
	_ = s.Dispatch(ctx, Presence{"ann", "home"}, Presence{"bob", "office"}, Presence{"ann", "away"})

	fmt.Println(session.Get[Tag](s).Values())
	fmt.Println(session.Get[Said](s).Values())
	fmt.Println(session.Get[Presence](s).Values())
	for p := range session.Where(s, func(p Presence) bool { return p.Where != "away" }) {
		fmt.Println("here:", p.User)
	}
	// Output:
	// [go docs]
	// [{ann hi} {bob bye}]
	// [{bob office} {ann away}]
	// here: bob
}

// Reducers are data too: a package declares its rules under a key and a
// session installs them in one write. Keep (and Record, for a single type)
// also keeps every event of a type that has reducers, as a record.
func ExampleSession_Install() {
	ctx := context.Background()
	s, _ := session.New()
	defer s.Close()

	bank := session.Reducers{
		Key: "example.com/bank",
		Rules: []session.Rule{
			session.On(func(_ session.ReducerContext, sl session.Slice[Balance], d Deposit) (session.Slice[Balance], error) {
				cur, _ := sl.Latest()
				return session.SliceOf(Balance{cur.Total + d.Amount}), nil
			}),
			session.Keep[Deposit](), // the deposits themselves, besides the balance
		},
	}
	_ = s.Install(ctx, bank)
	_ = s.Dispatch(ctx, Deposit{30}, Deposit{12})

	b, _ := session.Latest[Balance](s)
	fmt.Println(b.Total, session.Get[Deposit](s).Values())
	// Output:
	// 42 [{30} {12}]
}
