package shell_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/tools/shell"
)

// TestOutput: what the model reads of an output, written in pieces of
// every size, is the whole of it up to 30,000 characters, and else its
// first and last 15,000 around a line counting the rest, in valid UTF-8.
func TestOutput(t *testing.T) {
	half := shell.MaxOutputChars / 2
	tests := []struct {
		name   string
		text   string
		elided int // characters left out; 0: the text whole
	}{
		{"empty", "", 0},
		{"short", "hello\n", 0},
		{"exactly the cap", strings.Repeat("a", shell.MaxOutputChars), 0},
		{"one over the cap", strings.Repeat("a", shell.MaxOutputChars+1), 1},
		{"multibyte, under the head", strings.Repeat("é", shell.MaxOutputChars+10), 10},
		{"past the head", strings.Repeat("b", 200_000), 200_000 - shell.MaxOutputChars},
		{"multibyte past the head", strings.Repeat("日本", 100_000), 200_000 - shell.MaxOutputChars},
		{"large", "START" + strings.Repeat("x", 1_000_000) + "END", 1_000_008 - shell.MaxOutputChars},
	}
	for _, tt := range tests {
		for _, piece := range []int{1, 7, 4096, 1 << 20} {
			var o shell.Output
			for b := []byte(tt.text); len(b) > 0; {
				n := min(piece, len(b))
				_, _ = o.Write(b[:n])
				b = b[n:]
			}
			got := o.String()
			assert.True(t, utf8.ValidString(got), "%s in pieces of %d", tt.name, piece)
			if tt.elided == 0 {
				assert.Equal(t, tt.text, got, "%s in pieces of %d", tt.name, piece)
				continue
			}
			runes := []rune(tt.text)
			want := string(runes[:half]) + "\n[… " + itoa(tt.elided) + " characters of output left out …]\n" + string(runes[len(runes)-half:])
			assert.Equal(t, want, got, "%s in pieces of %d", tt.name, piece)
		}
	}
}

// TestOutputInvalidUTF8: bytes that are not UTF-8 reach the model as
// replacement characters.
func TestOutputInvalidUTF8(t *testing.T) {
	var o shell.Output
	_, _ = o.Write([]byte("a\xffb"))
	assert.Equal(t, "a\uFFFDb", o.String())
}

func itoa(n int) string { return strconv.Itoa(n) }
