package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplaceGenerated(t *testing.T) {
	section := func(body string) string { return beginMarker + "\n" + body + "\n" + endMarker }
	tests := []struct {
		name, doc, block, want string
		err                    bool
	}{
		{name: "no markers: appended", doc: "# Benchmarks\n\nhand-written\n", block: "new",
			want: "# Benchmarks\n\nhand-written\n\n" + section("new") + "\n"},
		{name: "replaces only between the markers", doc: "before\n" + section("old\ntable") + "\nafter\n", block: "\nnew\n",
			want: "before\n" + section("new") + "\nafter\n"},
		{name: "rerun is stable", doc: "a\n" + section("x") + "\nb", block: "x", want: "a\n" + section("x") + "\nb"},
		{name: "lone BEGIN", doc: "a\n" + beginMarker + "\nb", block: "x", err: true},
		{name: "lone END", doc: "a\n" + endMarker, block: "x", err: true},
		{name: "END before BEGIN", doc: endMarker + "\n" + beginMarker, block: "x", err: true},
		{name: "two sections", doc: section("a") + section("b"), block: "x", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replaceGenerated(tt.doc, tt.block)
			if tt.err {
				require.ErrorIs(t, err, errMarkers)
				assert.Contains(t, err.Error(), "BEGIN")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Whatever the document, a replacement keeps everything outside the
// markers, and replacing again with the same block changes nothing.
func FuzzReplaceGenerated(f *testing.F) {
	f.Add("# Benchmarks\n", "table")
	f.Add("a\n"+beginMarker+"\nold\n"+endMarker+"\nb", "new")
	f.Add(endMarker+beginMarker, "x")
	f.Fuzz(func(t *testing.T, doc, block string) {
		if strings.Contains(block, beginMarker) || strings.Contains(block, endMarker) {
			return
		}
		out, err := replaceGenerated(doc, block)
		if err != nil {
			return
		}
		b := strings.Index(out, beginMarker)
		e := strings.Index(out, endMarker)
		require.True(t, b >= 0 && e > b, "markers in order")
		assert.True(t, strings.HasPrefix(doc, out[:b]) || strings.TrimRight(doc, "\n")+"\n\n" == out[:b], "text before BEGIN kept")
		assert.Equal(t, strings.TrimSpace(block), out[b+len(beginMarker)+1:e-1])
		again, err := replaceGenerated(out, block)
		require.NoError(t, err)
		assert.Equal(t, out, again)
	})
}
