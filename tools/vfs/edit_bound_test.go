package vfs_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// allocatedBytes returns how many bytes f allocates on the heap.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A replace_all whose result would be far over the file size limit is
// refused before the result is built: the call allocates about what its
// arguments take, not matches × new_string.
func TestEditReplaceAllRefusesOversizedResultBeforeBuildingIt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		content  string
		old, new string
		all      bool
		want     string
		hint     string
	}{
		{"every character grows by 2 KB", strings.Repeat("a", vfs.MaxContentChars), "a", strings.Repeat("b", 2048), true,
			"the result would be 98304000 characters long; a file holds at most 48000", "replace fewer occurrences at a time, or split the file"},
		{"every character grows by 100 KB", strings.Repeat("a", vfs.MaxContentChars), "a", strings.Repeat("é", 50_000), true,
			"the result would be 2400000000 characters long", "replace fewer occurrences at a time, or split the file"},
		{"one replacement past the limit", strings.Repeat("a", vfs.MaxContentChars-10) + "XY", "XY", strings.Repeat("c", 20), false,
			"the result would be 48010 characters long", "shorten new_string, or split the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write(map[string]string{"big.txt": tc.content})
			args := jsonArgs(t, vfs.EditParams{FilePath: "big.txt", OldString: tc.old, NewString: tc.new, ReplaceAll: tc.all})
			var text string
			allocated := allocatedBytes(func() { text = fail(h, "edit_file", args) })
			assert.Contains(t, text, tc.want)
			assert.Contains(t, text, tc.hint)
			assert.Less(t, allocated, uint64(8*len(args)+1<<20), "bytes allocated by the refused edit")
			f, _ := vfs.Files(h.s).Get("big.txt")
			assert.Equal(t, 1, f.Version, "the file is unchanged")
		})
	}
}

// An edit that lands exactly on the limit is accepted, one past it is not;
// characters, not bytes, are counted.
func TestEditResultLimitCountsCharacters(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.txt": strings.Repeat("x", vfs.MaxContentChars-2) + "ab"})
	got := ok[vfs.WriteResult](h, "edit_file", jsonArgs(t, vfs.EditParams{FilePath: "a.txt", OldString: "ab", NewString: "éé"}))
	assert.Equal(t, vfs.MaxContentChars+2, got.SizeBytes, "two 2-byte characters")
	text := fail(h, "edit_file", jsonArgs(t, vfs.EditParams{FilePath: "a.txt", OldString: "é", NewString: "éé", ReplaceAll: true}))
	assert.Contains(t, text, "48002 characters")
}

// BenchmarkEditReplaceAllOversized reports the bytes a refused replace_all
// allocates: 48,000 matches of a one-character old_string, each to be
// replaced by 2 KB.
func BenchmarkEditReplaceAllOversized(b *testing.B) {
	h := newHarness(b)
	h.write(map[string]string{"big.txt": strings.Repeat("a", vfs.MaxContentChars)})
	args := jsonArgs(b, vfs.EditParams{FilePath: "big.txt", OldString: "a", NewString: strings.Repeat("b", 2048), ReplaceAll: true})
	b.ReportAllocs()
	for b.Loop() {
		out := h.call("edit_file", args)
		require.False(b, out.Success)
	}
}
