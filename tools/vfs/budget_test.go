package vfs

import (
	"context"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// regexpSize estimates the compiled size of a pattern closely enough to
// bound its cost: within a small factor of the real program, and never far
// below it.
func TestRegexpSizeEstimatesTheProgram(t *testing.T) {
	for _, p := range []string{
		`needle`, `ne+dle\s+is`, `(x|y|z){6} needle\b|\bneedles$`, `(.*a){100}z`, `(.*a){400}z`,
		`[a-z]{1000}`, `(alpha|beta|gamma|delta){1,3}`, `(?i)` + strings.Repeat(`(a|b)*`, 50) + `z`,
		`^package (main|lib)$`, `a{2,}`, `(?:ab){0,5}`,
	} {
		re, err := syntax.Parse(p, syntax.Perl)
		require.NoError(t, err)
		prog, err := syntax.Compile(re.Simplify())
		require.NoError(t, err)
		got := regexpSize(re, 1<<30)
		assert.GreaterOrEqual(t, 3*got, len(prog.Inst), "%s: estimated %d, compiled %d", p, got, len(prog.Inst))
		assert.LessOrEqual(t, got, 3*len(prog.Inst)+8, "%s: estimated %d, compiled %d", p, got, len(prog.Inst))
	}
}

// A pattern whose estimate passes the limit is refused before it is
// compiled; the estimate stops counting there.
func TestRegexpSizeStopsAtTheLimit(t *testing.T) {
	re, err := syntax.Parse(strings.Repeat(`(.*a){1000}`, 80), syntax.Perl)
	require.NoError(t, err)
	assert.Equal(t, maxRegexpSize+1, regexpSize(re, maxRegexpSize))
	_, err = compileRegexp(strings.Repeat(`(.*a){1000}`, 80))
	assert.ErrorContains(t, err, "too complex")
}

// A match that may take long reads its text through the reader that can
// stop, and finds what matching the whole string finds.
func TestLongMatchesUseTheStoppingReader(t *testing.T) {
	filler := strings.Repeat("ab ", 12_000)
	for _, tc := range []struct{ pattern, text string }{
		{`(x|y|z){6} needle\b`, filler + "xyzxyz needle"},
		{`(x|y|z){6} needle\b`, filler + "xyzxyz needles"},
		{`(x|y|z){6} needle\b`, "xyzxyz needle" + filler},
		{`^(ab |c{9})+$`, filler},
		{`\A(ab |c{9})(ab |c{9})*\z`, filler},
		{`(?i)\bAB AB\b.{20}$`, filler},
		{`(?i)\bAB AB\b.{20}z$`, filler},
		{`é{40}`, filler + strings.Repeat("é", 40)},
	} {
		m, err := compileRegexp(tc.pattern)
		require.NoError(t, err)
		require.Greater(t, m.size*int64(len(tc.text)), int64(interruptAbove), "%s takes the reader", tc.pattern)
		got, err := m.match(newBudget(context.Background()), tc.text)
		require.NoError(t, err)
		assert.Equal(t, m.re.MatchString(tc.text), got, tc.pattern)
	}
}
