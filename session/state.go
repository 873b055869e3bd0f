package session

import (
	"reflect"
	"sync"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// layout maps slice types to positions in state.vecs. It is immutable and
// shared by every state (and every forked session) with the same slice types;
// adding a type makes a new layout.
type layout struct {
	index map[reflect.Type]int
	types []reflect.Type
	// derived caches with: type -> this layout plus that type.
	derived sync.Map
}

var emptyLayout = &layout{index: map[reflect.Type]int{}}

// with returns l plus slice type t, built once per layout and type.
func (l *layout) with(t reflect.Type) *layout {
	if _, ok := l.index[t]; ok {
		return l
	}
	if v, ok := l.derived.Load(t); ok {
		return v.(*layout)
	}
	v, _ := l.derived.LoadOrStore(t, l.extend(t))
	return v.(*layout)
}

func (l *layout) extend(t reflect.Type) *layout {
	nl := &layout{index: make(map[reflect.Type]int, len(l.index)+1), types: append(l.types[:len(l.types):len(l.types)], t)}
	for k, v := range l.index {
		nl.index[k] = v
	}
	nl.index[t] = len(l.types)
	return nl
}

// state is one immutable version of a session's slices. Publishing a new
// state is a single atomic pointer store, so readers never lock and never see
// half of a dispatch.
type state struct {
	layout   *layout
	vecs     []*pvec.Vector
	revision uint64
}

var emptyState = &state{layout: emptyLayout}

func (st *state) get(t reflect.Type) *pvec.Vector {
	if i, ok := st.layout.index[t]; ok {
		return st.vecs[i]
	}
	return nil
}

// draft is a state being built under the session's write lock. It copies
// the vector table on its first change, so an unchanged draft costs nothing.
type draft struct {
	base   *state
	layout *layout
	vecs   []*pvec.Vector
	owned  bool
}

func newDraft(base *state) *draft {
	return &draft{base: base, layout: base.layout, vecs: base.vecs}
}

func (d *draft) get(t reflect.Type) *pvec.Vector {
	if i, ok := d.layout.index[t]; ok {
		return d.vecs[i]
	}
	return nil
}

// set replaces (or adds) the vector of slice type t.
func (d *draft) set(t reflect.Type, v *pvec.Vector) {
	i, ok := d.layout.index[t]
	if !ok {
		d.layout = d.layout.with(t)
		i = len(d.layout.types) - 1
	}
	if !d.owned {
		nv := make([]*pvec.Vector, len(d.layout.types))
		copy(nv, d.vecs)
		d.vecs, d.owned = nv, true
	}
	for len(d.vecs) < len(d.layout.types) {
		d.vecs = append(d.vecs, nil)
	}
	d.vecs[i] = v
}

// ensure makes sure slice type t exists (empty when new).
func (d *draft) ensure(t reflect.Type) {
	if _, ok := d.layout.index[t]; !ok {
		d.set(t, nil)
	}
}

func (d *draft) commit() *state {
	return &state{layout: d.layout, vecs: d.vecs, revision: d.base.revision + 1}
}
