// Package pvec is a persistent vector: an immutable, indexable sequence with
// structural sharing, after Clojure's PersistentVector. Items live in a
// 32-way trie of leaves plus a tail buffer of up to 32 items, so Append is
// amortized O(1), At and Set are O(log32 n), and keeping an old version costs
// nothing.
//
// Append writes into the tail's spare capacity in place when the vector being
// appended to is the newest owner of that tail (claimed with a
// compare-and-swap), so a chain of appends neither copies the tail nor the
// trie. Older versions never look past their own length, so they are not
// disturbed.
package pvec

import (
	"iter"
	"sync/atomic"
)

const (
	bits  = 5
	width = 1 << bits
	mask  = width - 1
)

// leaf holds up to 32 items. used counts the slots claimed by some vector
// version; only the version whose length equals used may claim the next slot.
type leaf struct {
	items [width]any
	used  atomic.Int32
}

// branch holds child nodes: *branch below the top levels, *leaf at level 5.
type branch struct {
	kids [width]any
}

// Vector is one immutable version of a sequence of items: a small value
// (copy it freely) pointing into shared nodes. The zero Vector is empty.
// Two Vectors that compare equal with == are the very same version.
// It is three words, because a session's state copies a table of them at
// every commit: the trie's depth and the tail's length follow from count.
type Vector struct {
	count int
	root  *branch
	tail  *leaf
}

// Len returns the number of items.
func (v Vector) Len() int { return v.count }

// tailLen is the number of items in the tail: 1 to 32 when there are any,
// since a full tail goes into the trie only when the next item comes.
func (v Vector) tailLen() int {
	if v.count == 0 {
		return 0
	}
	return (v.count-1)&mask + 1
}

func (v Vector) tailOffset() int { return v.count - v.tailLen() }

// shift is the level of the trie's root: bits for a trie of up to 1,024
// items, and bits more for each 32 times as many.
func (v Vector) shift() uint32 { return shiftFor(v.tailOffset()) }

// shiftFor is the level of the root of a trie holding n items (a multiple
// of 32): the least multiple of bits, bits at least, with n ≤ 2^(level+bits).
func shiftFor(n int) uint32 {
	level := uint32(bits)
	for n > 1<<(level+bits) {
		level += bits
	}
	return level
}

// At returns the item at index i. It panics when i is out of range, as
// indexing a Go slice does.
func (v Vector) At(i int) any {
	if i < 0 || i >= v.Len() {
		panic("pvec: index out of range")
	}
	return v.chunk(i)[i&mask]
}

// chunk returns the 32-item block holding index i.
func (v Vector) chunk(i int) *[width]any {
	if i >= v.tailOffset() {
		return &v.tail.items
	}
	var n any = v.root
	for level := v.shift(); level > 0; level -= bits {
		n = n.(*branch).kids[(i>>level)&mask]
	}
	return &n.(*leaf).items
}

// Append returns a vector with x added at the end.
func (v Vector) Append(x any) Vector {
	if v.count == 0 {
		t := &leaf{}
		t.items[0] = x
		t.used.Store(1)
		return Vector{count: 1, tail: t}
	}
	if n := v.tailLen(); n < width {
		t := v.tail
		if !t.used.CompareAndSwap(int32(n), int32(n+1)) {
			// Another version already extended this tail: copy ours.
			nt := &leaf{}
			copy(nt.items[:n], t.items[:n])
			nt.used.Store(int32(n + 1))
			t = nt
		}
		t.items[n] = x
		return Vector{count: v.count + 1, root: v.root, tail: t}
	}
	// The tail is full: push it into the trie and start a new one.
	root, shift := v.root, v.shift()
	if v.count>>bits > 1<<shift {
		nr := &branch{}
		nr.kids[0] = root
		nr.kids[1] = newPath(shift, v.tail)
		root = nr
	} else {
		root = pushTail(v.count, shift, root, v.tail)
	}
	t := &leaf{}
	t.items[0] = x
	t.used.Store(1)
	return Vector{count: v.count + 1, root: root, tail: t}
}

func pushTail(count int, level uint32, parent *branch, tail *leaf) *branch {
	ret := &branch{}
	if parent != nil {
		ret.kids = parent.kids
	}
	sub := ((count - 1) >> level) & mask
	if level == bits {
		ret.kids[sub] = tail
		return ret
	}
	if child, ok := ret.kids[sub].(*branch); ok && child != nil {
		ret.kids[sub] = pushTail(count, level-bits, child, tail)
	} else {
		ret.kids[sub] = newPath(level-bits, tail)
	}
	return ret
}

func newPath(level uint32, l *leaf) any {
	if level == 0 {
		return l
	}
	b := &branch{}
	b.kids[0] = newPath(level-bits, l)
	return b
}

// Set returns a vector whose item at index i is x. It panics when i is out of
// range.
func (v Vector) Set(i int, x any) Vector {
	if i < 0 || i >= v.Len() {
		panic("pvec: index out of range")
	}
	nv := v
	if i >= v.tailOffset() {
		n := v.tailLen()
		nt := &leaf{}
		copy(nt.items[:n], v.tail.items[:n])
		nt.items[i-v.tailOffset()] = x
		nt.used.Store(int32(n))
		nv.tail = nt
		return nv
	}
	nv.root = setPath(v.shift(), v.root, i, x).(*branch)
	return nv
}

func setPath(level uint32, n any, i int, x any) any {
	if level == 0 {
		l := &leaf{}
		l.items = n.(*leaf).items
		l.used.Store(width)
		l.items[i&mask] = x
		return l
	}
	b := &branch{kids: n.(*branch).kids}
	sub := (i >> level) & mask
	b.kids[sub] = setPath(level-bits, b.kids[sub], i, x)
	return b
}

// All yields the items in order.
func (v Vector) All() iter.Seq[any] {
	return func(yield func(any) bool) {
		for i := 0; i < v.Len(); i += width {
			c := v.chunk(i)
			n := min(width, v.count-i)
			for _, x := range c[:n] {
				if !yield(x) {
					return
				}
			}
		}
	}
}

// Backward yields the items from last to first with their indexes.
func (v Vector) Backward() iter.Seq2[int, any] {
	return func(yield func(int, any) bool) {
		for i := v.Len() - 1; i >= 0; {
			c := v.chunk(i)
			for j := i & mask; j >= 0; j, i = j-1, i-1 {
				if !yield(i, c[j]) {
					return
				}
			}
		}
	}
}

// From returns a vector holding items, in order.
func From(items ...any) Vector {
	var v Vector
	for _, x := range items {
		v = v.Append(x)
	}
	return v
}

// Filter returns the items for which keep reports true. When it keeps every
// item, it returns v itself, so identity comparisons stay cheap.
func (v Vector) Filter(keep func(any) bool) Vector {
	var out Vector
	i, dropped := 0, false
	for x := range v.All() {
		if keep(x) {
			if dropped {
				out = out.Append(x)
			}
		} else if !dropped {
			dropped = true
			out = v.prefix(i)
		}
		i++
	}
	if !dropped {
		return v
	}
	return out
}

// prefix returns the first n items as a new vector.
func (v Vector) prefix(n int) Vector {
	var out Vector
	for i := 0; i < n; i += width {
		c := v.chunk(i)
		for _, x := range c[:min(width, n-i)] {
			out = out.Append(x)
		}
	}
	return out
}
