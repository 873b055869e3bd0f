package inspector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// maxItemsShown bounds the items of one slice the state page shows.
const maxItemsShown = 200

// errReadOnly is what the inspector's view of a store says to a write.
var errReadOnly = errors.New("inspector: the inspector reads the store, it does not write it")

// atSeq is a read-only view of a store in which session id ends at seq
// at: what store.Journal.Open reads to fold the session as it was then.
type atSeq struct {
	store.Store
	id string
	at uint64
}

func (v atSeq) Header(ctx context.Context, id string) (store.Header, error) {
	h, err := v.Store.Header(ctx, id)
	if err == nil && id == v.id {
		h.Seq = v.at
	}
	return h, err
}

func (v atSeq) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[store.Batch, error] {
	if id == v.id && (upTo == 0 || upTo > v.at) {
		upTo = v.at
	}
	if id == v.id && after >= upTo {
		return func(func(store.Batch, error) bool) {}
	}
	return v.Store.Batches(ctx, id, after, upTo)
}

func (v atSeq) Checkpoint(ctx context.Context, id string, upTo uint64) (store.Checkpoint, bool, error) {
	if id == v.id && (upTo == 0 || upTo > v.at) {
		upTo = v.at
	}
	return v.Store.Checkpoint(ctx, id, upTo)
}

func (atSeq) Create(context.Context, store.Header) error                    { return errReadOnly }
func (atSeq) Append(context.Context, string, store.Batch) error             { return errReadOnly }
func (atSeq) PutCheckpoint(context.Context, string, store.Checkpoint) error { return errReadOnly }
func (atSeq) SetTags(context.Context, string, map[string]string) error      { return errReadOnly }
func (atSeq) Delete(context.Context, string) error                          { return errReadOnly }
func (atSeq) Close() error                                                  { return nil }

// stateAt returns session h's state at seq at, folded through the
// reducers of the options, and the registry that names its slices.
func (s *Server) stateAt(ctx context.Context, h store.Header, at uint64) (session.Snapshot, *serde.Registry, error) {
	if at > h.Seq {
		return session.Snapshot{}, nil, fmt.Errorf("session %s ends at seq %d; pick a seq up to it", printable(oneLine(h.ID, 120)), h.Seq)
	}
	if at < h.ForkSeq {
		return session.Snapshot{}, nil, fmt.Errorf("session %s starts at seq %d, where it was forked from %s; see that one's state before", printable(oneLine(h.ID, 120)), h.ForkSeq, printable(oneLine(h.Parent, 120)))
	}
	if at > h.ForkSeq && at < h.Seq {
		// at must end a batch: the state inside one was never committed.
		for b, err := range s.st.Batches(ctx, h.ID, at, 0) {
			if err != nil {
				return session.Snapshot{}, nil, err
			}
			if b.Seq != at+1 {
				return session.Snapshot{}, nil, fmt.Errorf("seq %d is inside a batch (the next one starts at %d); pick a seq where a batch ends, from the timeline", at, b.Seq)
			}
			break
		}
	}
	j := journal.New(atSeq{s.st, h.ID, at}, journal.Options{CheckpointEvery: -1})
	defer j.Close()
	reg := serde.NewRegistry()
	sess, err := j.Open(ctx, h.ID, reg, s.opts.Reducers)
	if err != nil {
		if len(s.opts.Reducers) == 0 {
			err = fmt.Errorf("%w (this inspector was given no reducers: Options.Reducers)", err)
		}
		return session.Snapshot{}, nil, err
	}
	defer sess.Close()
	return sess.Snapshot(), reg, nil
}

// stateView is what the state page shows.
type stateView struct {
	row
	At     uint64
	Files  []vfs.File
	Plan   *planning.Plan
	Slices []sliceView
}

// sliceView is one slice of a state, as a JSON tree.
type sliceView struct {
	Name  string
	Len   int
	Items []any // each item decoded from its JSON
	More  int
}

// statePage shows a session's state at a seq: its files, its plan, every
// slice as a JSON tree.
func (s *Server) statePage(w http.ResponseWriter, r *http.Request) {
	h, ok := s.header(w, r, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	at, err := seqParam(r, "seq", h.Seq)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	snap, reg, err := s.stateAt(r.Context(), h, at)
	if err != nil {
		s.fail(w, http.StatusUnprocessableEntity, "cannot fold the state of session "+printable(oneLine(h.ID, 120))+" at seq "+fmt.Sprint(at)+": "+err.Error())
		return
	}
	v := stateView{row: summarize(h, h.Updated), At: at, Files: slices.Collect(vfs.FilesOf(snap).All())}
	if p, ok := planning.PlanOf(snap); ok {
		v.Plan = &p
	}
	for _, t := range sortedTypes(snap, reg) {
		sv := sliceView{Name: reg.Name(t), Len: snap.Len(t)}
		for x := range snap.Items(t) {
			if len(sv.Items) == maxItemsShown {
				sv.More = sv.Len - maxItemsShown
				break
			}
			sv.Items = append(sv.Items, asJSON(x))
		}
		v.Slices = append(v.Slices, sv)
	}
	s.render(w, "state.html", v)
}

// sortedTypes returns the slice types of snap sorted by name.
func sortedTypes(snap session.Snapshot, reg *serde.Registry) []reflect.Type {
	types := snap.Types()
	slices.SortFunc(types, func(a, b reflect.Type) int { return strings.Compare(reg.Name(a), reg.Name(b)) })
	return types
}

// asJSON returns x as its JSON decodes: maps, lists, strings, numbers.
func asJSON(x any) any {
	b, err := json.Marshal(x)
	if err != nil {
		return "(cannot be shown as JSON: " + err.Error() + ")"
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return string(b)
	}
	return v
}
