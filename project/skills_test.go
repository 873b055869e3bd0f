package project_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/project"
)

func TestLoadSkills(t *testing.T) {
	long := strings.Repeat("d", 1100)
	for _, tc := range []struct {
		name     string
		files    map[string]string // under the project; home/ is the home
		want     map[string]string // name: description
		warns    []string
		leftOut  []string
		allowed  map[string][]string
		hidden   []string
		fromUser []string
	}{
		{
			name:  "the Agent Skills format",
			files: map[string]string{".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms.\nlicense: Apache-2.0\nallowed-tools: Read Grep Bash(python:*)\n---\n# PDF\nUse scripts/fill.py.", ".claude/skills/pdf/scripts/fill.py": "print()"},
			want:  map[string]string{"pdf": "Fill PDF forms."}, allowed: map[string][]string{"pdf": {"Read", "Grep", "Bash(python:*)"}},
		},
		{
			name:  "a list of allowed tools; hidden from the model",
			files: map[string]string{".claude/skills/x/SKILL.md": "---\ndescription: X.\nallowed-tools: [Read, Glob]\ndisable-model-invocation: true\n---\nbody"},
			want:  map[string]string{"x": "X."}, allowed: map[string][]string{"x": {"Read", "Glob"}}, hidden: []string{"x"},
		},
		{
			name:  "lenient: an unquoted colon, no description, a long one, a name unlike the folder's",
			files: map[string]string{".claude/skills/a/SKILL.md": "---\nname: a\ndescription: Use when: tests fail\n---\n", ".claude/skills/b/SKILL.md": "---\nname: b\n---\n# Build things\nmore", ".claude/skills/c/SKILL.md": "---\ndescription: " + long + "\n---\nc", ".claude/skills/d/SKILL.md": "---\nname: Do_It\ndescription: D.\n---\n", ".claude/skills/e/SKILL.md": "---\nname: ee\ndescription: E.\n---\n"},
			want:  map[string]string{"a": "Use when: tests fail", "b": "Build things", "c": long[:1024], "d": "D.", "ee": "E."},
			warns: []string{
				"SKILL.md:3: the frontmatter is not valid YAML",
				"b/SKILL.md: no description",
				"c/SKILL.md: the description is 1100 characters long; the first 1024 are used",
				`d/SKILL.md: the name "Do_It" is not lower-case letters, digits and hyphens (at most 64); the folder's name "d" is used`,
				`e/SKILL.md: the name "ee" differs from the folder's "e"`,
			},
		},
		{
			name:  "no frontmatter",
			files: map[string]string{".claude/skills/notes/SKILL.md": "# Take notes\nWrite them down."},
			want:  map[string]string{"notes": "Take notes"},
			warns: []string{"notes/SKILL.md: no frontmatter"},
		},
		{
			name:    "left out: an unclosed frontmatter, a folder name that cannot be a name, no SKILL.md",
			files:   map[string]string{".claude/skills/u/SKILL.md": "---\nname: u\n", ".claude/skills/Bad Name/SKILL.md": "---\ndescription: B.\n---\n", ".claude/skills/empty/README.md": "x"},
			want:    map[string]string{},
			leftOut: []string{"Bad Name/SKILL.md: no usable name", "u/SKILL.md:1: the frontmatter cannot be read"},
		},
		{
			name: "the user's wins over the project's; .offshoot over .claude",
			files: map[string]string{"home/.claude/skills/x/SKILL.md": "---\ndescription: user's.\n---\n", ".claude/skills/x/SKILL.md": "---\ndescription: project's.\n---\n",
				".claude/skills/y/SKILL.md": "---\ndescription: claude's.\n---\n", ".offshoot/skills/y/SKILL.md": "---\ndescription: offshoot's.\n---\n"},
			want:     map[string]string{"x": "user's.", "y": "offshoot's."},
			leftOut:  []string{".claude/skills/x/SKILL.md: skill \"x\" is defined by", ".claude/skills/y/SKILL.md: skill \"y\" is defined by"},
			fromUser: []string{"x"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tc.files)
			s := project.LoadSkills(project.Options{Dir: dir, HomeDir: filepath.Join(dir, "home")})
			got := map[string]string{}
			for _, k := range s.All {
				got[k.Name] = k.Description
				assert.Equal(t, tc.allowed[k.Name], k.AllowedTools, k.Name)
				assert.Equal(t, slicesContains(tc.hidden, k.Name), k.Hidden, k.Name)
				assert.Equal(t, slicesContains(tc.fromUser, k.Name), k.Source == "user", k.Name)
				assert.True(t, k.Mounted)
			}
			assert.Equal(t, tc.want, got)
			requireEach(t, tc.warns, s.Warnings)
			requireEach(t, tc.leftOut, s.LeftOut)
		})
	}
}

// slicesContains reports whether list holds s.
func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// requireEach checks that there is one problem for each of wants, each
// containing its want, in order.
func requireEach(t *testing.T, wants []string, got []project.LeftOut) {
	t.Helper()
	var lines []string
	for _, g := range got {
		lines = append(lines, g.Path+": "+g.Reason)
	}
	require.Len(t, lines, len(wants), strings.Join(lines, "\n"))
	for i, w := range wants {
		assert.Contains(t, lines[i], w)
	}
}

// A SKILL.md that is a FIFO or a link out of the tree is never waited on.
func TestLoadSkillsRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude/skills/f"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, ".claude/skills/f/SKILL.md"), 0o644))
	s := project.LoadSkills(project.Options{Dir: dir})
	assert.Empty(t, s.All)
	requireEach(t, []string{"f/SKILL.md: cannot be read"}, s.LeftOut)
}

// Real public skills (anthropics/skills, Apache 2.0) load as Claude Code
// reads them: name, description, instructions, their files mountable.
func TestPublicSkills(t *testing.T) {
	s := project.LoadSkills(project.Options{Dir: corpus(t)})
	assert.Empty(t, s.Warnings)
	assert.Empty(t, s.LeftOut)
	require.Len(t, s.All, 2)
	brand, web := s.All[0], s.All[1]
	assert.Equal(t, "brand-guidelines", brand.Name)
	assert.True(t, strings.HasPrefix(brand.Description, "Applies Anthropic's official brand colors and typography"))
	assert.True(t, strings.HasPrefix(brand.Body, "# Anthropic Brand Styling"))
	assert.Equal(t, "webapp-testing", web.Name)
	assert.True(t, strings.HasPrefix(web.Description, "Toolkit for interacting with and testing local web applications using Playwright."))
	assert.Contains(t, web.Body, "scripts/with_server.py")
	assert.Nil(t, web.AllowedTools)
	for _, k := range s.All {
		assert.True(t, k.Mounted)
		assert.Equal(t, "project", k.Source)
	}
	mounts := s.Mounts()
	require.Len(t, mounts, 2)
	assert.Equal(t, ".offshoot/skills/webapp-testing", mounts[1].MountPath)
}

// corpus returns a copy of testdata/corpus outside this repository, so
// that it is a project of its own.
func corpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/corpus")))
	return dir
}
