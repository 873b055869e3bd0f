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

func FuzzParseSkill(f *testing.F) {
	for _, s := range []string{
		"---\nname: pdf\ndescription: PDFs.\nallowed-tools: Read Bash(git:*)\n---\nbody",
		"---\ndescription: Use when: x\nallowed-tools: [Read, 1]\n---\n",
		"# no frontmatter\n", "---\nname: a\n", "---\n- a\n---\nb", "---\nname: Bad_Name\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, ok, s := project.ParseSkill(data)
		if !ok {
			require.NotEmpty(t, s.LeftOut, "a skill left out says why")
			return
		}
		require.Regexp(t, `^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`, k.Name)
		require.NotEmpty(t, k.Description)
		require.LessOrEqual(t, len([]rune(k.Description)), 1024)
	})
}

func FuzzCommand(f *testing.F) {
	for _, s := range []string{"/review a.go", "/x $1 \"a b\" 'c", "/a/b", "Fix $ARGUMENTS and $9 $10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, args, ok := project.ParseCommandLine(line)
		if ok {
			require.NotEmpty(t, name)
			require.NotContains(t, name, "/")
		}
		_ = project.Command{Body: line}.Expand(args)
	})
}
