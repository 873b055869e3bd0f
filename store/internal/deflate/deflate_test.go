package deflate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendAndRead(t *testing.T) {
	tests := []struct {
		name     string
		body     []byte
		deflated bool
	}{
		{"short", []byte("a short body"), false},
		{"text that repeats", []byte(strings.Repeat("the ledger rounds half to even ", 20)), true},
		{"bytes that do not compress", func() []byte {
			b := make([]byte, 4096)
			x := uint32(1)
			for i := range b {
				x = x*1664525 + 1013904223
				b[i] = byte(x >> 24)
			}
			return b
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ok := Append([]byte{9}, tt.body)
			require.Equal(t, tt.deflated, ok)
			if !ok {
				assert.Equal(t, []byte{9}, out, "dst unchanged")
				return
			}
			assert.LessOrEqual(t, len(out)-1, len(tt.body)*7/8)
			back, err := Read(out[1:], len(tt.body))
			require.NoError(t, err)
			assert.Equal(t, tt.body, back)
			_, err = Read(out[1:], len(tt.body)-1)
			assert.ErrorContains(t, err, "over the store's bound")
		})
	}
}

// FuzzRead: no input makes Read panic or return more than its bound.
func FuzzRead(f *testing.F) {
	good, _ := Append(nil, bytes.Repeat([]byte("abc"), 100))
	f.Add(good, 1000)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 10)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, src []byte, limit int) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		body, err := Read(src, limit)
		if err == nil && len(body) > limit {
			t.Fatalf("read %d bytes, over the bound of %d", len(body), limit)
		}
	})
}

// BenchmarkAppend deflates a model turn's batch (2 KB of JSON, text a
// reader would write) and a continued conversation's question (264 bytes):
// deflate's cost per call, whatever the size, is most of the small one's.
func BenchmarkAppend(b *testing.B) {
	bodies := []struct {
		name string
		body string
	}{
		{"turn", `[{"type":1,"data":{"evaluation":"01JXYZ","message":{"role":"user","content":"` +
			strings.Repeat("How does the ledger round each line before it sums the column? ", 8) + `"}}},` +
			`{"type":2,"data":{"evaluation":"01JXYZ","message":{"role":"assistant","content":"` +
			strings.Repeat("It rounds half to even per line, then carries the remainder forward. ", 16) + `"}}},` +
			`{"type":3,"data":{"input_tokens":1234,"output_tokens":567,"cached_tokens":890}}]`},
		{"question", `[{"type":1,"data":{"evaluation":"01JXYZABCDEF","ns":"offshoot","key":"main","repeat":true}},` +
			`{"type":2,"data":{"evaluation":"01JXYZABCDEF","message":{"role":"user","content":"Do it. And then the rest of what I asked for before, please, with the ledger rounded."}}}]`},
	}
	for _, bb := range bodies {
		b.Run(bb.name, func(b *testing.B) {
			body := []byte(bb.body)
			b.SetBytes(int64(len(body)))
			var dst []byte
			for b.Loop() {
				dst, _ = Append(dst[:0], body)
			}
			b.ReportMetric(float64(len(dst))/float64(len(body)), "ratio")
		})
	}
}
