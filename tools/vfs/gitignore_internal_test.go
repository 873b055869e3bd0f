package vfs

import (
	"context"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Matching a path against a .gitignore's patterns stops once the mount's
// context is cancelled, and otherwise lets the last pattern that matches
// decide.
func TestIgnoreRulesMatch(t *testing.T) {
	rules := &ignoreRules{}
	for _, p := range []string{"*.log", "!keep.log", "build/"} {
		rules.patterns = append(rules.patterns, gitignore.ParsePattern(p, nil))
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		rel     string
		dir     bool
		ignored bool
		err     error
	}{
		{name: "ignored", ctx: t.Context(), rel: "a/x.log", ignored: true},
		{name: "kept by a later pattern", ctx: t.Context(), rel: "keep.log"},
		{name: "a directory", ctx: t.Context(), rel: "a/build", dir: true, ignored: true},
		{name: "a file of a directory's name", ctx: t.Context(), rel: "a/build"},
		{name: "cancelled", ctx: cancelled, rel: "a/x.log", err: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ignored, err := rules.match(tc.ctx, tc.rel, tc.dir)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ignored, ignored)
		})
	}
	var none *ignoreRules
	ignored, err := none.match(cancelled, "x", false)
	require.NoError(t, err)
	assert.False(t, ignored)
}
