package session_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Restoring is bounded for every part of a snapshot: 100,000
// children_ids (about 0.9 MB) cost a few times their size, not hundreds
// (each id added to a persistent map one by one cost 250 MB; a restored
// snapshot keeps them as a list, 2.7× their JSON). Measured as
// the bytes allocated, which bound the peak heap and do not depend on the
// machine's speed.
func TestRestoringManyChildrenIsBounded(t *testing.T) {
	const n = 100_000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf(`"c%05d"`, i)
	}
	data := []byte(`{"version":"1","session_id":"root","created_at":"2026-01-02T03:04:05Z","children_ids":[` +
		strings.Join(ids, ",") + `],"slices":[]}`)
	reg := serde.NewRegistry()
	var snap session.Snapshot
	base := heapBytes()
	stop := sampleHeap()
	allocated := allocatedBy(func() {
		var err error
		snap, err = session.UnmarshalSnapshot(data, reg)
		require.NoError(t, err)
	})
	peak := stop()
	assert.Len(t, snap.ChildIDs(), n)
	ratio := float64(allocated) / float64(len(data))
	t.Logf("%d bytes of snapshot, %d allocated (%.1f×), peak heap added about %.1f× (sampled)",
		len(data), allocated, ratio, float64(peak-base)/float64(len(data)))
	assert.Less(t, ratio, 8.0, "bytes allocated per byte of snapshot (the peak heap, which the 4× bound is about, is below it)")
}

// allocatedBy returns the bytes f allocated.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
