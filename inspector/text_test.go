package inspector

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\ntext\twith tabs", "plain\ntext\twith tabs"},
		{"esc\x1b[31m bell\x07 nul\x00", `esc\x1b[31m bell\x07 nul\x00`},
		{"del\x7f c1\u0085", `del\x7f c1\u0085`},
		{"bidi\u202Eevil\u2066 zw\u200b", `bidi\u202eevil\u2066 zw\u200b`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"a real \uFFFD stays", "a real \uFFFD stays"},
		{strings.Repeat("é", maxShown), strings.Repeat("é", maxShown/2) + " … (65536 more bytes not shown)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, printable(tt.in))
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ in, want string }{
		{"one\ntwo\n\nthree", "<p>one\ntwo</p><p>three</p>"},
		{"see:\n```go\nx := <b>\n```\nafter", "<p>see:</p><pre><code>x := &lt;b&gt;\n</code></pre><p>after</p>"},
		{"```\nnever closed", "<pre><code>never closed\n</code></pre>"},
		{`<a href="javascript:alert(1)">x</a> **bold**`, "<p>&lt;a href=&#34;javascript:alert(1)&#34;&gt;x&lt;/a&gt; **bold**</p>"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(markdown(tt.in)))
	}
}

// Whatever a model writes, the chat shows it as text: the only tags are
// the renderer's own, and no character hides.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"hi", "```\n<script>\n```", `"><img src=x onerror=alert(1)>`, "\x1b[2J\u202E", "a\n\n```x\n\n", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := string(markdown(s))
		rest := out
		for _, tag := range []string{"<p>", "</p>", "<pre><code>", "</code></pre>"} {
			rest = strings.ReplaceAll(rest, tag, "")
		}
		if strings.ContainsAny(rest, "<>\"'") {
			t.Fatalf("markup in %q: %q", s, out)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
		for _, r := range out {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("a hidden character %U from %q", r, s)
			}
		}
	})
}
