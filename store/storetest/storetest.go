// Package storetest is the conformance suite of store.Store, in the manner
// of testing/fstest and testing/slogtest: every backend — this module's and
// a third party's — runs the same checks.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return open(t) }, storetest.Options{})
//	}
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/store"
)

// Options adjust the suite to a backend.
type Options struct {
	// Corrupt, when set, damages what the store holds of the batch of
	// session id that starts at seq (its bytes, as a disk or a hand would),
	// so that the suite checks that reading it is an error naming the
	// session and the seq — never a panic or a shorter history. Backends
	// that cannot be damaged from outside leave it nil.
	Corrupt func(t *testing.T, st store.Store, id string, seq uint64)
	// LargeBytes is the size of the large session the suite stores and
	// reads back whole (100 MB when 0; negative skips it).
	LargeBytes int
}

// Run runs the suite on stores made by open, a new empty one for each
// check; the suite closes them.
func Run(t *testing.T, open func(t *testing.T) store.Store, opts Options) {
	ctx := context.Background()
	fresh := func(t *testing.T) store.Store {
		t.Helper()
		st := open(t)
		t.Cleanup(func() {
			if err := st.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return st
	}
	checks := []struct {
		name string
		fn   func(t *testing.T, ctx context.Context, st store.Store)
	}{
		{"Headers", headers},
		{"AppendAndRead", appendAndRead},
		{"Conflicts", conflicts},
		{"Forks", forks},
		{"Ranges", ranges},
		{"Checkpoints", checkpoints},
		{"List", list},
		{"SetTags", setTags},
		{"Delete", deletes},
		{"ConcurrentSessions", concurrentSessions},
		{"ConcurrentWriters", concurrentWriters},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, ctx, fresh(t)) })
	}
	t.Run("Large", func(t *testing.T) {
		size := opts.LargeBytes
		if size == 0 {
			size = 100 << 20
		}
		if size < 0 {
			t.Skip("the backend's options skip the large session")
		}
		large(t, ctx, fresh(t), size)
	})
	t.Run("DamagedRows", func(t *testing.T) {
		if opts.Corrupt == nil {
			t.Skip("the backend gave no way to damage a row")
		}
		damaged(t, ctx, fresh(t), opts.Corrupt)
	})
}

// batch is a batch of n events at seq, each an event of type "test.Note"
// whose JSON names its seq.
func batch(seq uint64, n int) store.Batch {
	b := store.Batch{Seq: seq, Time: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Second)}
	for i := range n {
		b.Events = append(b.Events, store.Event{Type: "test.Note", Data: json.RawMessage(fmt.Sprintf(`{"seq":%d,"text":"note"}`, seq+uint64(i)))})
	}
	return b
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got %v, want an error matching %v", what, err, target)
	}
}

// collect reads the batches of id after after up to upTo.
func collect(t *testing.T, ctx context.Context, st store.Store, id string, after, upTo uint64) []store.Batch {
	t.Helper()
	var out []store.Batch
	for b, err := range st.Batches(ctx, id, after, upTo) {
		must(t, err, fmt.Sprintf("Batches(%s, %d, %d)", id, after, upTo))
		out = append(out, b)
	}
	return out
}

// sameBatches fails unless got and want hold the same batches: seqs,
// times (to the microsecond) and events byte for byte.
func sameBatches(t *testing.T, got, want []store.Batch) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d batches, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Seq != w.Seq || !g.Time.Truncate(time.Microsecond).Equal(w.Time.Truncate(time.Microsecond)) || len(g.Events) != len(w.Events) {
			t.Fatalf("batch %d: got seq %d at %v with %d events, want seq %d at %v with %d", i, g.Seq, g.Time, len(g.Events), w.Seq, w.Time, len(w.Events))
		}
		for j := range w.Events {
			if g.Events[j].Type != w.Events[j].Type || !bytes.Equal(g.Events[j].Data, w.Events[j].Data) {
				t.Fatalf("batch %d event %d: got %s %s, want %s %s", i, j, g.Events[j].Type, g.Events[j].Data, w.Events[j].Type, w.Events[j].Data)
			}
		}
	}
}

func headers(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "a", Tags: map[string]string{"user": "ada"}}), "Create")
	h, err := st.Header(ctx, "a")
	must(t, err, "Header")
	if h.ID != "a" || h.Parent != "" || h.Seq != 0 || h.Tags["user"] != "ada" || h.Created.IsZero() || h.Updated.Before(h.Created) {
		t.Fatalf("Header: got %+v", h)
	}
	wantErr(t, st.Create(ctx, store.Header{ID: "a"}), store.ErrExists, "Create of a taken id")
	wantErr(t, st.Create(ctx, store.Header{ID: "b", Parent: "missing"}), store.ErrNotFound, "Create under an unknown parent")
	_, err = st.Header(ctx, "missing")
	wantErr(t, err, store.ErrNotFound, "Header of an unknown id")
	for _, bad := range []store.Header{{}, {ID: "c", Parent: "c"}, {ID: "d", ForkSeq: 3}} {
		wantErr(t, st.Create(ctx, bad), store.ErrInvalid, fmt.Sprintf("Create(%+v)", bad))
	}
	// An id or tags larger than a store keeps (store.MaxIDBytes,
	// store.MaxTagsBytes) are refused, and ones just within are kept.
	long := strings.Repeat("x", store.MaxIDBytes+1)
	for what, bad := range map[string]store.Header{
		"a long id":     {ID: long},
		"a long parent": {ID: "e", Parent: long, ForkSeq: 1},
		"long tags":     {ID: "f", Tags: longTags(store.MaxTagsBytes + 1)},
	} {
		wantErr(t, st.Create(ctx, bad), store.ErrInvalid, "Create with "+what)
	}
	must(t, st.Create(ctx, store.Header{ID: long[1:], Tags: longTags(store.MaxTagsBytes)}), "Create with an id and tags of the largest sizes")
}

func appendAndRead(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "s"}), "Create")
	want := []store.Batch{batch(1, 3), batch(4, 1), batch(5, 2)}
	for _, b := range want {
		must(t, st.Append(ctx, "s", b), fmt.Sprintf("Append at %d", b.Seq))
	}
	// What was appended is what is read, whatever the caller does to its
	// own copy afterwards.
	want[0].Events[0].Data[2] = 'X'
	want[0].Events[0].Data = json.RawMessage(`{"seq":1,"text":"note"}`)
	sameBatches(t, collect(t, ctx, st, "s", 0, 0), want)
	h, err := st.Header(ctx, "s")
	must(t, err, "Header")
	if h.Seq != 6 {
		t.Fatalf("Header.Seq: got %d, want 6 (the last event's)", h.Seq)
	}
	if h.Updated.Before(h.Created) {
		t.Fatalf("Header.Updated %v is before Created %v", h.Updated, h.Created)
	}
	for b, err := range st.Batches(ctx, "missing", 0, 0) {
		wantErr(t, err, store.ErrNotFound, fmt.Sprintf("Batches of an unknown id (got %+v)", b))
	}
	wantErr(t, st.Append(ctx, "missing", batch(1, 1)), store.ErrNotFound, "Append to an unknown id")
	if err := st.Append(ctx, "s", store.Batch{Seq: 7}); err == nil {
		t.Fatal("Append of a batch without events succeeded")
	}
}

func conflicts(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "s"}), "Create")
	must(t, st.Append(ctx, "s", batch(1, 2)), "Append")
	for _, seq := range []uint64{1, 2, 4, 10} {
		wantErr(t, st.Append(ctx, "s", batch(seq, 1)), store.ErrConflict, fmt.Sprintf("Append at seq %d after seq 2", seq))
	}
	sameBatches(t, collect(t, ctx, st, "s", 0, 0), []store.Batch{batch(1, 2)})
	must(t, st.Append(ctx, "s", batch(3, 1)), "Append that follows")
}

func forks(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "p"}), "Create the parent")
	must(t, st.Append(ctx, "p", batch(1, 5)), "Append to the parent")
	must(t, st.Append(ctx, "p", batch(6, 5)), "Append to the parent")
	if err := st.Create(ctx, store.Header{ID: "far", Parent: "p", ForkSeq: 11}); err == nil {
		t.Fatal("Create of a fork past the parent's last seq succeeded")
	}
	must(t, st.Create(ctx, store.Header{ID: "c", Parent: "p", ForkSeq: 5}), "Create the fork")
	h, err := st.Header(ctx, "c")
	must(t, err, "Header")
	if h.Parent != "p" || h.ForkSeq != 5 || h.Seq != 5 {
		t.Fatalf("the fork's header: got %+v", h)
	}
	wantErr(t, st.Append(ctx, "c", batch(1, 1)), store.ErrConflict, "the fork's first batch at seq 1")
	must(t, st.Append(ctx, "c", batch(6, 2)), "the fork's first batch after its fork seq")
	sameBatches(t, collect(t, ctx, st, "c", 0, 0), []store.Batch{batch(6, 2)})
	sameBatches(t, collect(t, ctx, st, "p", 0, 0), []store.Batch{batch(1, 5), batch(6, 5)})
}

func ranges(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "s"}), "Create")
	all := []store.Batch{batch(1, 2), batch(3, 3), batch(6, 1), batch(7, 4)}
	for _, b := range all {
		must(t, st.Append(ctx, "s", b), "Append")
	}
	tests := []struct {
		after, upTo uint64
		want        []store.Batch
	}{
		{0, 0, all},
		{2, 0, all[1:]},
		{3, 0, all[2:]}, // the batch spanning 3 has events before it
		{0, 5, all[:2]},
		{0, 6, all[:3]},
		{0, 7, all[:3]}, // the batch spanning 7 has events after it
		{5, 6, all[2:3]},
		{10, 0, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("after %d up to %d", tt.after, tt.upTo), func(t *testing.T) {
			sameBatches(t, collect(t, ctx, st, "s", tt.after, tt.upTo), tt.want)
		})
	}
	// A reader that stops early stops the sequence.
	n := 0
	for range st.Batches(ctx, "s", 0, 0) {
		if n++; n == 2 {
			break
		}
	}
}

func checkpoints(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "s"}), "Create")
	for _, b := range []store.Batch{batch(1, 2), batch(3, 3), batch(6, 1)} {
		must(t, st.Append(ctx, "s", b), "Append")
	}
	if _, ok, err := st.Checkpoint(ctx, "s", 0); err != nil || ok {
		t.Fatalf("Checkpoint of a session without one: ok %v, err %v", ok, err)
	}
	if err := st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 4, State: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("a checkpoint inside a batch was accepted")
	}
	must(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 2, State: json.RawMessage(`{"at":2}`)}), "PutCheckpoint at 2")
	if c, ok, err := st.Checkpoint(ctx, "s", 4); err != nil || !ok || string(c.State) != `{"at":2}` {
		t.Fatalf("Checkpoint up to 4 after one at 2: got %s (ok %v, err %v)", c.State, ok, err)
	}
	must(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 5, State: json.RawMessage(`{"at":5}`)}), "PutCheckpoint at 5")
	must(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 5, State: json.RawMessage(`{"at":"5 again"}`)}), "PutCheckpoint at 5 again")
	for _, tt := range []struct {
		upTo uint64
		want string
		ok   bool
	}{{0, `{"at":"5 again"}`, true}, {6, `{"at":"5 again"}`, true}, {4, "", false}, {2, "", false}, {1, "", false}} { // the one at 2 went with the one at 5
		c, ok, err := st.Checkpoint(ctx, "s", tt.upTo)
		must(t, err, "Checkpoint")
		if ok != tt.ok || (ok && string(c.State) != tt.want) {
			t.Fatalf("Checkpoint up to %d: got %s (ok %v), want %s (ok %v)", tt.upTo, c.State, ok, tt.want, tt.ok)
		}
	}
	_, _, err := st.Checkpoint(ctx, "missing", 0)
	wantErr(t, err, store.ErrNotFound, "Checkpoint of an unknown id")
	wantErr(t, st.PutCheckpoint(ctx, "missing", store.Checkpoint{State: json.RawMessage(`{}`)}), store.ErrNotFound, "PutCheckpoint of an unknown id")
}

func list(t *testing.T, ctx context.Context, st store.Store) {
	before := time.Now().Add(-time.Hour)
	must(t, st.Create(ctx, store.Header{ID: "old", Tags: map[string]string{"user": "ada"}}), "Create")
	must(t, st.Append(ctx, "old", batch(1, 1)), "Append")
	must(t, st.Create(ctx, store.Header{ID: "new", Tags: map[string]string{"user": "bob", "kind": "chat"}}), "Create")
	must(t, st.Create(ctx, store.Header{ID: "kid", Parent: "old", ForkSeq: 1}), "Create")
	must(t, st.Append(ctx, "new", batch(1, 1)), "Append")
	listed := func(q store.Query) []store.Header {
		hs, err := st.List(ctx, q)
		must(t, err, "List")
		return hs
	}
	ids := func(q store.Query) string {
		var out []string
		for _, h := range listed(q) {
			out = append(out, h.ID)
		}
		return strings.Join(out, ",")
	}
	all := listed(store.Query{})
	if len(all) != 3 {
		t.Fatalf("List: got %d sessions, want 3", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].Updated.After(all[i-1].Updated) {
			t.Fatalf("List is not most recently updated first: %s (%v) after %s (%v)", all[i].ID, all[i].Updated, all[i-1].ID, all[i-1].Updated)
		}
	}
	if got := ids(store.Query{Parent: "old"}); got != "kid" {
		t.Fatalf("List by parent: got %q", got)
	}
	if got := ids(store.Query{Tags: map[string]string{"user": "bob", "kind": "chat"}}); got != "new" {
		t.Fatalf("List by tags: got %q", got)
	}
	if got := ids(store.Query{Tags: map[string]string{"user": "bob", "kind": "other"}}); got != "" {
		t.Fatalf("List by tags none has: got %q", got)
	}
	if got := listed(store.Query{Limit: 2}); len(got) != 2 || got[0].ID != all[0].ID {
		t.Fatalf("List with a limit: got %d, the first %v", len(got), got)
	}
	if got := ids(store.Query{UpdatedBefore: before}); got != "" {
		t.Fatalf("List updated before the sessions existed: got %q", got)
	}
	if got := listed(store.Query{UpdatedBefore: time.Now().Add(time.Hour)}); len(got) != 3 {
		t.Fatalf("List updated before an hour from now: got %d, want 3", len(got))
	}
	if got := ids(store.Query{Roots: true}); got != "new,old" {
		t.Fatalf("List of the roots: got %q, want \"new,old\"", got)
	}
	must(t, st.Create(ctx, store.Header{ID: "o%_ld"}), "Create")
	for prefix, want := range map[string]string{
		"o": "o%_ld,old", "ol": "old", "old": "old", "olde": "", "o%": "o%_ld", "o_": "", "%": "", "k": "kid", "x": "",
	} {
		got := strings.Split(ids(store.Query{IDPrefix: prefix}), ",")
		slices.Sort(got)
		if strings.Join(got, ",") != want {
			t.Fatalf("List by the id prefix %q: got %q, want %q", prefix, got, want)
		}
	}
	if got := ids(store.Query{IDPrefix: "o", Roots: true, Tags: map[string]string{"user": "ada"}}); got != "old" {
		t.Fatalf("List by id prefix, roots and tags: got %q", got)
	}
}

func setTags(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "a", Tags: map[string]string{"user": "ada"}}), "Create")
	must(t, st.Append(ctx, "a", batch(1, 2)), "Append")
	before, err := st.Header(ctx, "a")
	must(t, err, "Header")
	must(t, st.SetTags(ctx, "a", map[string]string{"user": "ada", "turns": "3"}), "SetTags")
	h, err := st.Header(ctx, "a")
	must(t, err, "Header")
	if len(h.Tags) != 2 || h.Tags["turns"] != "3" || h.Tags["user"] != "ada" {
		t.Fatalf("SetTags: the header's tags are %v", h.Tags)
	}
	if h.Seq != before.Seq || !h.Updated.Equal(before.Updated) || !h.Created.Equal(before.Created) {
		t.Fatalf("SetTags changed more than the tags: %+v, was %+v", h, before)
	}
	got, err := st.List(ctx, store.Query{Tags: map[string]string{"turns": "3"}})
	must(t, err, "List")
	if len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("List by a tag SetTags set: got %v", got)
	}
	must(t, st.SetTags(ctx, "a", nil), "SetTags of no tags")
	if h, err = st.Header(ctx, "a"); err != nil || len(h.Tags) != 0 {
		t.Fatalf("SetTags of no tags: the header's tags are %v (%v)", h.Tags, err)
	}
	wantErr(t, st.SetTags(ctx, "missing", map[string]string{"k": "v"}), store.ErrNotFound, "SetTags of an unknown id")
	wantErr(t, st.SetTags(ctx, "a", longTags(store.MaxTagsBytes+1)), store.ErrInvalid, "SetTags of tags over store.MaxTagsBytes")
}

func deletes(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "root"}), "Create")
	must(t, st.Append(ctx, "root", batch(1, 2)), "Append")
	must(t, st.PutCheckpoint(ctx, "root", store.Checkpoint{Seq: 2, State: json.RawMessage(`{}`)}), "PutCheckpoint")
	must(t, st.Create(ctx, store.Header{ID: "child", Parent: "root", ForkSeq: 2}), "Create")
	must(t, st.Create(ctx, store.Header{ID: "grandchild", Parent: "child", ForkSeq: 2}), "Create")
	must(t, st.Create(ctx, store.Header{ID: "other"}), "Create")
	wantErr(t, st.Delete(ctx, "root"), store.ErrHasChildren, "Delete of a session with forks")
	must(t, store.DeleteTree(ctx, st, "root"), "DeleteTree")
	for _, id := range []string{"root", "child", "grandchild"} {
		_, err := st.Header(ctx, id)
		wantErr(t, err, store.ErrNotFound, "Header after DeleteTree of "+id)
	}
	if _, err := st.Header(ctx, "other"); err != nil {
		t.Fatalf("DeleteTree reached an unrelated session: %v", err)
	}
	wantErr(t, st.Delete(ctx, "root"), store.ErrNotFound, "Delete of a deleted session")
	// The id may be used again, from scratch.
	must(t, st.Create(ctx, store.Header{ID: "root"}), "Create again")
	sameBatches(t, collect(t, ctx, st, "root", 0, 0), nil)
	if _, ok, err := st.Checkpoint(ctx, "root", 0); err != nil || ok {
		t.Fatalf("a checkpoint of the deleted session survived: ok %v, err %v", ok, err)
	}
}

func concurrentSessions(t *testing.T, ctx context.Context, st store.Store) {
	const sessions, batches = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("s%d", i)
			if err := st.Create(ctx, store.Header{ID: id}); err != nil {
				errs <- err
				return
			}
			for j := range batches {
				if err := st.Append(ctx, id, batch(uint64(2*j+1), 2)); err != nil {
					errs <- fmt.Errorf("%s at %d: %w", id, 2*j+1, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range sessions {
		got := collect(t, ctx, st, fmt.Sprintf("s%d", i), 0, 0)
		if len(got) != batches || got[batches-1].Last() != 2*batches {
			t.Fatalf("session s%d: %d batches, ending at %d", i, len(got), got[len(got)-1].Last())
		}
	}
}

func concurrentWriters(t *testing.T, ctx context.Context, st store.Store) {
	must(t, st.Create(ctx, store.Header{ID: "s"}), "Create")
	const writers = 8
	var wg sync.WaitGroup
	results := make(chan error, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			b := batch(1, 1)
			b.Events[0].Data = json.RawMessage(fmt.Sprintf(`{"writer":%d}`, i))
			results <- st.Append(ctx, "s", b)
		}()
	}
	close(start)
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("a losing writer got %v, want an error matching ErrConflict", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d writers appended at seq 1, want exactly 1", won)
	}
	if got := collect(t, ctx, st, "s", 0, 0); len(got) != 1 || len(got[0].Events) != 1 {
		t.Fatalf("the log holds %d batches, want the winner's only", len(got))
	}
}

func large(t *testing.T, ctx context.Context, st store.Store, size int) {
	must(t, st.Create(ctx, store.Header{ID: "big"}), "Create")
	const perBatch = 64
	// Text that compresses little, as model output does not compress
	// much, so that a backend that compresses still stores a large log.
	var words []string
	x := uint32(2463534242)
	for range 170 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		words = append(words, fmt.Sprintf("%08x", x)[:1+x%6])
	}
	text := strings.Join(words, " ")
	seq, written := uint64(1), 0
	for written < size {
		b := store.Batch{Seq: seq, Time: time.Now()}
		for range perBatch {
			d := json.RawMessage(fmt.Sprintf(`{"seq":%d,"text":%q}`, seq+uint64(len(b.Events)), text))
			b.Events = append(b.Events, store.Event{Type: "test.Note", Data: d})
			written += len(d)
		}
		must(t, st.Append(ctx, "big", b), fmt.Sprintf("Append at %d", seq))
		seq = b.Last() + 1
	}
	next, read := uint64(1), 0
	for b, err := range st.Batches(ctx, "big", 0, 0) {
		must(t, err, "Batches")
		if b.Seq != next {
			t.Fatalf("batch at %d, want %d", b.Seq, next)
		}
		for _, e := range b.Events {
			read += len(e.Data)
		}
		next = b.Last() + 1
	}
	if next != seq || read != written {
		t.Fatalf("read %d bytes up to seq %d, wrote %d up to %d", read, next-1, written, seq-1)
	}
}

func damaged(t *testing.T, ctx context.Context, st store.Store, corrupt func(*testing.T, store.Store, string, uint64)) {
	must(t, st.Create(ctx, store.Header{ID: "hurt"}), "Create")
	for _, b := range []store.Batch{batch(1, 2), batch(3, 2), batch(5, 2)} {
		must(t, st.Append(ctx, "hurt", b), "Append")
	}
	corrupt(t, st, "hurt", 3)
	var got []store.Batch
	var failed error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("reading a damaged batch panicked: %v", p)
			}
		}()
		for b, err := range st.Batches(ctx, "hurt", 0, 0) {
			if err != nil {
				failed = err
				break
			}
			got = append(got, b)
		}
	}()
	if failed == nil {
		t.Fatalf("reading a damaged log gave %d batches and no error", len(got))
	}
	if msg := failed.Error(); !strings.Contains(msg, "hurt") || !strings.Contains(msg, "3") {
		t.Fatalf("the error does not name the session and the seq: %v", failed)
	}
	if len(got) > 1 {
		t.Fatalf("%d batches came before the error; the damaged one is the second", len(got))
	}
}

// longTags returns tags that take n bytes as JSON.
func longTags(n int) map[string]string {
	const frame = len(`{"k":""}`)
	return map[string]string{"k": strings.Repeat("v", n-frame)}
}
