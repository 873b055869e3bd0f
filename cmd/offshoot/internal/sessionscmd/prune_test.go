package sessionscmd

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/store"
)

// listed is a store whose List gives the old sessions in the order a
// hostile file can make them come — every parent before its forks (all
// updated at one instant, ids sorting so) — and counts calls of Delete.
// The sessions of recent are updated now.
type listed struct {
	store.Store
	recent map[string]bool
	calls  int
}

func (l *listed) List(ctx context.Context, q store.Query) ([]store.Header, error) {
	hs, err := l.Store.List(ctx, store.Query{Parent: q.Parent, Tags: q.Tags})
	if err != nil || q.UpdatedBefore.IsZero() {
		return hs, err
	}
	hs = slices.DeleteFunc(hs, func(h store.Header) bool { return l.recent[h.ID] })
	slices.SortFunc(hs, func(a, b store.Header) int { return strings.Compare(a.ID, b.ID) })
	return hs, nil
}

func (l *listed) Delete(ctx context.Context, id string) error {
	l.calls++
	return l.Store.Delete(ctx, id)
}

// Prune removes a chain of forks with a call of Delete per session, the
// forks first — not a pass over all the old sessions per session removed,
// which a chain of 100,000 made last for days — and keeps what a recent
// session was forked from.
func TestPruneRemovesAChainOnce(t *testing.T) {
	const depth = 500
	ctx := context.Background()
	mem := store.NewMemory()
	require.NoError(t, mem.Create(ctx, store.Header{ID: "0root"}))
	// Two chains from the root, their ids sorting parents first: a's
	// sessions are all old, b's last one is recent.
	for _, chain := range []string{"a", "b"} {
		parent := "0root"
		for i := range depth {
			id := fmt.Sprintf("%s%06d", chain, i)
			require.NoError(t, mem.Create(ctx, store.Header{ID: id, Parent: parent}))
			parent = id
		}
	}
	st := &listed{Store: mem, recent: map[string]bool{fmt.Sprintf("b%06d", depth-1): true}}
	var out bytes.Buffer
	s := &sessions{env: &cli.Env{Stdout: &out}}
	require.NoError(t, s.prune(ctx, &cli.Stored{Store: st, Where: "the store"}, "1h", time.Now().Add(time.Hour)))

	assert.LessOrEqual(t, st.calls, 2*depth+1, "one Delete per old session")
	hs, err := mem.List(ctx, store.Query{})
	require.NoError(t, err)
	assert.Len(t, hs, depth+1, "the root and chain b are kept")
	for _, h := range hs {
		assert.False(t, strings.HasPrefix(h.ID, "a"), "%s is removed", h.ID)
	}
	assert.Contains(t, out.String(), fmt.Sprintf("removed %d sessions older than 1h from the store\n", depth))
	assert.Contains(t, out.String(), fmt.Sprintf("kept %d older sessions that more recent sessions were forked from\n", depth))
}
