package columns

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWidth(t *testing.T) {
	tests := map[string]int{
		"":                         0,
		"plain":                    5,
		"✎ ↳ │ …":                  7,
		"日本語":                      6,
		"e\u0301":                  1, // e and a combining accent
		"\x1b[1mbold\x1b[0m":       4,
		"\x1b[36m│\x1b[0m agent-1": 9,
	}
	for s, want := range tests {
		assert.Equal(t, want, Width(s), "%q", s)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		cols int
		want string
	}{
		{"short", 10, "short"},
		{"short", 0, "short"},
		{"a long line", 9, "a long l…"},
		{"\x1b[1mbold text\x1b[0m here", 8, "\x1b[1mbold te…\x1b[0m"},
		{"\x1b[1mbold\x1b[0m text", 7, "\x1b[1mbold\x1b[0m t…"},
		{"日本語です", 6, "日本…"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Cut(tt.s, tt.cols), "%q in %d", tt.s, tt.cols)
		if tt.cols > 0 {
			assert.LessOrEqual(t, Width(Cut(tt.s, tt.cols)), tt.cols)
		}
	}
}

func TestWrap(t *testing.T) {
	assert.Equal(t, []string{"one two", "three"}, Wrap("one two three", 7))
	assert.Equal(t, []string{"abcde", "fghij", "k"}, Wrap("abcdefghijk", 5))
	assert.Equal(t, []string{"日本", "語で", "す"}, Wrap("日本語です", 5))
	assert.Equal(t, []string{"unlimited width"}, Wrap("unlimited width", 0))
}

func TestFill(t *testing.T) {
	assert.Equal(t, "parity: ok — each\n  subagent started\n  with the state\nshort", Fill("parity: ok — each subagent started with the state\nshort", 20))
	assert.Equal(t, "    Subagent: one\n      two three", Fill("    Subagent: one two three", 18))
	assert.Equal(t, "as it is", Fill("as it is", 0))
}

func FuzzFill(f *testing.F) {
	f.Add("parity: ok — each subagent started with the state", 20)
	f.Add("日本語です e\u0301 \x1b[1m", 3)
	f.Fuzz(func(t *testing.T, s string, cols int) {
		if cols < 6 || cols > 200 {
			return
		}
		for _, l := range Wrap(s, cols) {
			if Width(l) > cols {
				t.Fatalf("Wrap(%q, %d) gave %q, %d columns", s, cols, l, Width(l))
			}
		}
		if s = strings.TrimLeft(s, " "); !strings.Contains(s, "\n") {
			for _, l := range strings.Split(Fill(s, cols), "\n") {
				if Width(l) > cols {
					t.Fatalf("Fill(%q, %d) gave %q, %d columns", s, cols, l, Width(l))
				}
			}
		}
		if c := Cut(s, cols); Width(c) > cols {
			t.Fatalf("Cut(%q, %d) = %q, %d columns", s, cols, c, Width(c))
		}
	})
}
