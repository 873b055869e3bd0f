package session

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// state is one immutable version of a session: its reducer table, its
// slices, its revision and the Seq of the last event it committed. A session holds its current state in an atomic pointer;
// reading is one load, and a write computes the next state with a pure
// function (apply, withReducer, adopt) and stores it. A Snapshot is a state.
type state struct {
	table    *table
	layout   *layout
	vecs     []pvec.Vector
	revision uint64
	seq      uint64
}

var emptyState = &state{table: emptyTable, layout: emptyLayout}

// get returns the slice of type t, empty when there is none.
func (st *state) get(t reflect.Type) pvec.Vector {
	if i, ok := st.layout.index[t]; ok {
		return st.vecs[i]
	}
	return pvec.Vector{}
}

// apply returns the state after the reducers of envs, applied in order, or
// the first reducer's failure; st is not changed. An event type without
// reducers is recorded in the slice of its own type (AppendAll). envs carry
// their Seq, which the next state remembers.
func (st *state) apply(envs []bus.Envelope) (*state, error) {
	d := draft{layout: st.layout, vecs: st.vecs}
	for i := range envs {
		payload := envs[i].Payload
		et := reflect.TypeOf(payload)
		entries := st.table.byEvent[et]
		if len(entries) == 0 {
			j := d.slot(et)
			d.vecs[j] = d.vecs[j].Append(payload)
			continue
		}
		rc := ReducerContext{Envelope: envs[i]}
		for _, e := range entries {
			if e.apply == nil {
				j := d.slot(e.slice)
				d.vecs[j] = d.vecs[j].Append(payload)
				continue
			}
			v := d.get(e.slice)
			out, err := reduce(e, rc, v, payload)
			if err != nil {
				return nil, &ReducerError{Index: i, Event: e.event, Slice: e.slice, Err: err}
			}
			if out != v {
				d.set(e.slice, out)
			}
		}
	}
	// Every applied dispatch is a new revision, even one whose reducers
	// left the slices as they were.
	return d.state(st.table, st.revision+1, envs[len(envs)-1].Seq), nil
}

// reduce runs one reducer, turning a panic into a *bus.PanicError.
func reduce(e reducerEntry, rc ReducerContext, v pvec.Vector, payload any) (out pvec.Vector, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = pvec.Vector{}, &bus.PanicError{Value: p}
		}
	}()
	return e.apply(rc, v, payload)
}

// withTable returns st with table t, and an (empty) slice for each of
// slices it lacks. The revision is unchanged: registering changes no item.
func (st *state) withTable(t *table, slices ...reflect.Type) *state {
	d := draft{layout: st.layout, vecs: st.vecs}
	for _, s := range slices {
		d.ensure(s)
	}
	return d.state(t, st.revision, st.seq)
}

// adopt returns the state that st becomes when rolled back to src: src's
// slices, an empty slice for each of st's reducer slices that src lacks,
// st's table, the next revision, and st's seq (a session's log only grows).
func (st *state) adopt(src *state) *state {
	d := draft{layout: src.layout, vecs: src.vecs}
	if src.table != st.table { // a state has a slice for each of its reducers
		for _, list := range st.table.byEvent {
			for _, e := range list {
				d.ensure(e.slice)
			}
		}
	}
	return d.state(st.table, st.revision+1, st.seq)
}

// newTypes returns the types of next that st lacks: its slice types and
// the event types its reducers take.
func (st *state) newTypes(next *state) []reflect.Type {
	var out []reflect.Type
	if next.table != st.table {
		for t := range next.table.byEvent {
			if _, ok := st.table.byEvent[t]; !ok {
				out = append(out, t)
			}
		}
		// in a fixed order, so that which of two types whose default
		// names collide gets the name does not vary from run to run
		slices.SortFunc(out, func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) })
	}
	if next.layout != st.layout {
		for _, t := range next.layout.types {
			if _, ok := st.layout.index[t]; !ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// layout maps slice types to positions in state.vecs. It is immutable and
// shared by every state (and every forked session) with the same slice
// types; adding a type makes a new layout.
type layout struct {
	index map[reflect.Type]int
	types []reflect.Type
	// derived memoizes with: type -> this layout plus that type, so the
	// children of one parent that all add a slice type share one layout
	// instead of copying the index each.
	derived sync.Map
}

var emptyLayout = &layout{index: map[reflect.Type]int{}}

// with returns l plus slice type t.
func (l *layout) with(t reflect.Type) *layout {
	if _, ok := l.index[t]; ok {
		return l
	}
	if v, ok := l.derived.Load(t); ok {
		return v.(*layout)
	}
	nl := &layout{index: make(map[reflect.Type]int, len(l.index)+1), types: append(l.types[:len(l.types):len(l.types)], t)}
	for k, v := range l.index {
		nl.index[k] = v
	}
	nl.index[t] = len(l.types)
	v, _ := l.derived.LoadOrStore(t, nl)
	return v.(*layout)
}

// draft is the slices of a state being computed. It copies the vector table
// on its first change, so an unchanged draft costs nothing; the copy and
// the state that will hold it are one allocation (see newState).
type draft struct {
	layout *layout
	vecs   []pvec.Vector
	owned  bool
	next   *state // the state allocated with vecs, once owned
}

// state returns the draft's state with table t, revision and seq.
func (d *draft) state(t *table, revision, seq uint64) *state {
	st := d.next
	if st == nil {
		st = new(state)
	}
	*st = state{table: t, layout: d.layout, vecs: d.vecs, revision: revision, seq: seq}
	return st
}

func (d *draft) get(t reflect.Type) pvec.Vector {
	if i, ok := d.layout.index[t]; ok {
		return d.vecs[i]
	}
	return pvec.Vector{}
}

// set replaces (or adds) the vector of slice type t.
func (d *draft) set(t reflect.Type, v pvec.Vector) {
	d.vecs[d.slot(t)] = v
}

// slot returns the position of slice type t in the draft's vector table,
// which it makes the draft's own, adding t (empty) when new: one lookup
// for a change that reads the vector and writes it back.
func (d *draft) slot(t reflect.Type) int {
	i, ok := d.layout.index[t]
	if !ok {
		d.layout = d.layout.with(t)
		i = d.layout.index[t]
	}
	if !d.owned {
		d.next = newState(len(d.layout.types))
		copy(d.next.vecs, d.vecs)
		d.vecs, d.owned = d.next.vecs, true
	}
	for len(d.vecs) < len(d.layout.types) {
		d.vecs = append(d.vecs, pvec.Vector{})
	}
	return i
}

// ensure makes sure slice type t exists (empty when new).
func (d *draft) ensure(t reflect.Type) {
	if _, ok := d.layout.index[t]; !ok {
		d.set(t, pvec.Vector{})
	}
}
