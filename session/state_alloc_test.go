package session

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// newState's table is n slices long, all of it usable, for every size:
// those allocated with their state (each entry of stateAllocs checks its
// room's size) and those past them.
func TestNewStateHasItsTable(t *testing.T) {
	for n := 0; n <= len(stateAllocs)+2; n++ {
		st := newState(n)
		require.Len(t, st.vecs, n)
		v := pvec.Vector{}.Append(n)
		for i := range st.vecs {
			require.Zero(t, st.vecs[i].Len())
			st.vecs[i] = v
		}
		for i := range st.vecs {
			require.Equal(t, 1, st.vecs[i].Len())
		}
	}
}
