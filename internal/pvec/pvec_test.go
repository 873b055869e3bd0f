package pvec

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func collect(v Vector) []any { return slices.Collect(v.All()) }

func TestAppendAndAtAcrossTrieLevels(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 64, 1024, 1025, 32*32*32 + 5, 40000} {
		var v Vector
		for i := range n {
			v = v.Append(i)
		}
		require.Equal(t, n, v.Len())
		for i := range n {
			require.Equal(t, i, v.At(i), "n=%d i=%d", n, i)
		}
		all := collect(v)
		require.Len(t, all, n)
		for i, x := range all {
			require.Equal(t, i, x)
		}
		j := n - 1
		for i, x := range v.Backward() {
			require.Equal(t, j, i)
			require.Equal(t, j, x)
			j--
		}
		require.Equal(t, -1, j)
	}
}

func TestOldVersionsNeverChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type version struct {
		v    Vector
		want []any
	}
	versions := []version{{Vector{}, nil}}
	for range 5000 {
		base := versions[rng.IntN(len(versions))]
		var next version
		switch op := rng.IntN(10); {
		case op < 7:
			x := rng.Int()
			next = version{base.v.Append(x), append(slices.Clone(base.want), x)}
		case op < 9 && base.v.Len() > 0:
			i := rng.IntN(base.v.Len())
			x := rng.Int()
			w := slices.Clone(base.want)
			w[i] = x
			next = version{base.v.Set(i, x), w}
		default:
			next = version{base.v.Filter(func(x any) bool { return x.(int)%3 != 0 }), slices.DeleteFunc(slices.Clone(base.want), func(x any) bool { return x.(int)%3 == 0 })}
		}
		versions = append(versions, next)
	}
	for _, ver := range versions {
		got := collect(ver.v)
		if len(ver.want) == 0 {
			assert.Empty(t, got)
			continue
		}
		require.Equal(t, ver.want, got)
	}
}

func TestConcurrentAppendsToOneVersion(t *testing.T) {
	var base Vector
	for i := range 40 {
		base = base.Append(i)
	}
	var wg sync.WaitGroup
	results := make([]Vector, 8)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := base
			for i := range 100 {
				v = v.Append(g*1000 + i)
			}
			results[g] = v
		}()
	}
	wg.Wait()
	for g, v := range results {
		require.Equal(t, 140, v.Len())
		for i := range 40 {
			require.Equal(t, i, v.At(i))
		}
		for i := range 100 {
			require.Equal(t, g*1000+i, v.At(40+i))
		}
	}
	require.Equal(t, 40, base.Len())
}

func TestFilterKeepsIdentityWhenNothingDropped(t *testing.T) {
	v := From(1, 2, 3)
	assert.True(t, v == v.Filter(func(any) bool { return true }), "the very same version")
	assert.Equal(t, []any{1, 3}, collect(v.Filter(func(x any) bool { return x != 2 })))
	assert.Equal(t, 0, v.Filter(func(any) bool { return false }).Len())
}

func TestIndexOutOfRangePanics(t *testing.T) {
	var v Vector
	assert.Panics(t, func() { v.At(0) })
	assert.Panics(t, func() { From(1).Set(1, 2) })
}

// A Vector is three words — its length, its trie and its tail; the
// trie's depth and the tail's length follow from the length — because a
// session's state copies a table of them at every commit.
func TestAVectorIsThreeWords(t *testing.T) {
	require.Equal(t, 3*unsafe.Sizeof(uintptr(0)), unsafe.Sizeof(Vector{}))
}

// The trie's depth follows from the number of items it holds: one level
// up to 1,024 items, two up to 32,768, and so on.
func TestShiftFollowsTheTriesSize(t *testing.T) {
	for _, tt := range []struct{ inTrie, shift int }{
		{0, 5}, {32, 5}, {1024, 5}, {1056, 10}, {32 * 32 * 32, 10}, {32*32*32 + 32, 15}, {1 << 25, 20}, {1<<25 + 32, 25},
	} {
		assert.Equal(t, uint32(tt.shift), shiftFor(tt.inTrie), "%d items in the trie", tt.inTrie)
	}
}
