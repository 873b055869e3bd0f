package project_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/project"
)

func FuzzImports(f *testing.F) {
	for _, s := range []string{"@a.md", "x @b\\ c.md, `@d` ```\n@e\n```\n@f", "~~~\n@g", "me@h.md @@i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		for _, p := range project.Imports(s) {
			require.NotEmpty(t, p)
			require.False(t, seen[p], "each import once")
			seen[p] = true
			require.False(t, strings.ContainsAny(p, "\n\t"))
		}
	})
}
