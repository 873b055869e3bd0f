package session

import (
	"unsafe"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// newState returns a zero state whose vecs has n (empty) slices, the state
// and its vector table allocated together: a commit changes its slices, so
// it needs both, and one allocation instead of two is one less a commit
// (two a runner turn). The table is exactly n long, as it was when it had
// an allocation of its own; past stateAllocs' sizes it still has one.
func newState(n int) *state {
	if n >= 1 && n <= len(stateAllocs) {
		return stateAllocs[n-1](n)
	}
	return &state{vecs: make([]pvec.Vector, n)}
}

// stateVecs is a state and the room for its vector table, in one object;
// A is an array of pvec.Vector.
type stateVecs[A any] struct {
	st   state
	room A
}

// allocState allocates a stateVecs whose room is an array of n vectors
// (A is [n]pvec.Vector) and returns its state, vecs the whole room.
func allocState[A any](n int) *state {
	sv := new(stateVecs[A])
	if unsafe.Sizeof(sv.room) != uintptr(n)*unsafe.Sizeof(pvec.Vector{}) {
		panic("session: stateAllocs holds a room of the wrong size")
	}
	// room is a [n]pvec.Vector: a pointer to it is one to its first
	// element, and the object holds n of them.
	sv.st.vecs = unsafe.Slice((*pvec.Vector)(unsafe.Pointer(&sv.room)), n)
	return &sv.st
}

// stateAllocs is allocState for each table size from 1, in order.
var stateAllocs = [...]func(int) *state{
	allocState[[1]pvec.Vector], allocState[[2]pvec.Vector], allocState[[3]pvec.Vector],
	allocState[[4]pvec.Vector], allocState[[5]pvec.Vector], allocState[[6]pvec.Vector],
	allocState[[7]pvec.Vector], allocState[[8]pvec.Vector], allocState[[9]pvec.Vector],
	allocState[[10]pvec.Vector], allocState[[11]pvec.Vector], allocState[[12]pvec.Vector],
	allocState[[13]pvec.Vector], allocState[[14]pvec.Vector], allocState[[15]pvec.Vector],
	allocState[[16]pvec.Vector], allocState[[17]pvec.Vector], allocState[[18]pvec.Vector],
	allocState[[19]pvec.Vector], allocState[[20]pvec.Vector], allocState[[21]pvec.Vector],
	allocState[[22]pvec.Vector], allocState[[23]pvec.Vector], allocState[[24]pvec.Vector],
	allocState[[25]pvec.Vector], allocState[[26]pvec.Vector], allocState[[27]pvec.Vector],
	allocState[[28]pvec.Vector], allocState[[29]pvec.Vector], allocState[[30]pvec.Vector],
	allocState[[31]pvec.Vector], allocState[[32]pvec.Vector], allocState[[33]pvec.Vector],
	allocState[[34]pvec.Vector], allocState[[35]pvec.Vector], allocState[[36]pvec.Vector],
	allocState[[37]pvec.Vector], allocState[[38]pvec.Vector], allocState[[39]pvec.Vector],
	allocState[[40]pvec.Vector], allocState[[41]pvec.Vector], allocState[[42]pvec.Vector],
	allocState[[43]pvec.Vector], allocState[[44]pvec.Vector], allocState[[45]pvec.Vector],
	allocState[[46]pvec.Vector], allocState[[47]pvec.Vector], allocState[[48]pvec.Vector],
	allocState[[49]pvec.Vector], allocState[[50]pvec.Vector], allocState[[51]pvec.Vector],
	allocState[[52]pvec.Vector], allocState[[53]pvec.Vector], allocState[[54]pvec.Vector],
	allocState[[55]pvec.Vector], allocState[[56]pvec.Vector], allocState[[57]pvec.Vector],
	allocState[[58]pvec.Vector], allocState[[59]pvec.Vector], allocState[[60]pvec.Vector],
	allocState[[61]pvec.Vector], allocState[[62]pvec.Vector], allocState[[63]pvec.Vector],
	allocState[[64]pvec.Vector],
}
