package session_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Event is a ~100-byte event, like the ones performance.md measures.
type Event struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
	Body string `json:"body"`
}

var benchSizes = []int{10, 1_000, 100_000, 1_000_000}

func benchSession(b *testing.B, n int) *session.Session {
	b.Helper()
	s, err := session.New(session.WithRegistry(serde.NewRegistry()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	if err := session.Register(s, session.AppendAll[Event]); err != nil {
		b.Fatal(err)
	}
	events := make([]Event, n)
	for i := range events {
		events[i] = Event{ID: i, Kind: "observation", Body: "a line of tool output that is about eighty characters long......"}
	}
	if err := session.Seed(s, events...); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkDispatchAppend(b *testing.B) {
	s := benchSession(b, 100_000)
	ctx := context.Background()
	ev := Event{ID: 1, Kind: "k", Body: "body"}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Dispatch(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	for _, n := range benchSizes {
		s := benchSession(b, n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Snapshot()
			}
		})
	}
}

func BenchmarkRollback(b *testing.B) {
	for _, n := range benchSizes {
		s := benchSession(b, n)
		snap := s.Snapshot()
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Rollback(snap); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFork measures a whole fork — new id, clock, bus registration,
// rollback to the parent's snapshot — and the close that undoes it.
func BenchmarkFork(b *testing.B) {
	for _, n := range benchSizes {
		s := benchSession(b, n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := s.Fork()
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Close()
			}
		})
	}
}

// BenchmarkFirstDispatchAfterFork is the first append a forked child makes
// to a 1e6-item slice it shares with its parent. Forks are made in batches
// with the timer stopped, so only the dispatches are timed.
func BenchmarkFirstDispatchAfterFork(b *testing.B) {
	s := benchSession(b, 1_000_000)
	ctx := context.Background()
	ev := Event{ID: 1, Kind: "k", Body: "body"}
	const batch = 1000
	children := make([]*session.Session, 0, batch)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%batch == 0 {
			b.StopTimer()
			for _, c := range children {
				_ = c.Close()
			}
			children = children[:0]
			for range batch {
				c, err := s.Fork()
				if err != nil {
					b.Fatal(err)
				}
				children = append(children, c)
			}
			b.StartTimer()
		}
		if err := children[i%batch].Dispatch(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	for _, c := range children {
		_ = c.Close()
	}
}

func BenchmarkMarshalSnapshot(b *testing.B) {
	s := benchSession(b, 10_000)
	snap := s.Snapshot()
	data, err := session.MarshalSnapshot(snap, s.Registry())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := session.MarshalSnapshot(snap, s.Registry()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalSnapshot(b *testing.B) {
	s := benchSession(b, 10_000)
	data, err := session.MarshalSnapshot(s.Snapshot(), s.Registry())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := session.UnmarshalSnapshot(data, s.Registry()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatchOnSharedBus dispatches to one session on a bus that
// carries 1 or 1,000 forked children of it.
func BenchmarkDispatchOnSharedBus(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			bb := bus.New(bus.WithClock(time.Now))
			s, err := session.New(session.WithBus(bb), session.WithRegistry(serde.NewRegistry()))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for range n - 1 {
				c, err := s.Fork()
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
			}
			if _, err := bus.Subscribe(bb, "observer", func(context.Context, bus.Envelope, Event) error { return nil }); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			ev := Event{ID: 1}
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Dispatch(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
