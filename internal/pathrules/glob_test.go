package pathrules

import (
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A glob's prefix and suffix only spare path.Match the segments it would
// refuse: whatever the pattern, it says what path.Match says.
func TestGlobAgreesWithPathMatch(t *testing.T) {
	patterns := []string{"*.pem", "id_rsa*", ".env.*", "*firebase-adminsdk*.json", "service-account*.json",
		"[abc]x", "*a]b", `a\*b`, `a\b`, "?x", "x?", "*", "a*b*c"}
	segs := []string{"", "a", "x.pem", "id_rsa.pub", ".env.local", "my-firebase-adminsdk-1.json", "service-account.json",
		"ax", "bx", "dx", "a]b", "za]b", "a*b", "ab", "ax", "xa", "abc", "a-b-c", "acb"}
	for _, p := range patterns {
		g := newGlob(p)
		for _, s := range segs {
			want, _ := path.Match(p, s)
			assert.Equal(t, want, g.match(s), "%q against %q", p, s)
		}
	}
}

// BenchmarkSecret is the rule a mount applies to every path it walks.
func BenchmarkSecret(b *testing.B) {
	for b.Loop() {
		Secret("src/internal/pkg/module/file_name_here.go")
	}
}
