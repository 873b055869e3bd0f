package project_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/project"
)

func TestCommandExpand(t *testing.T) {
	for _, tc := range []struct {
		name, body, args, want string
	}{
		{"all the arguments", "Fix issue $ARGUMENTS now.", "#123 in api", "Fix issue #123 in api now."},
		{"each argument", "Review PR $1 with priority $2; $3.", `456 "very high"`, "Review PR 456 with priority very high; ."},
		{"none named: they follow", "Summarize the diff.", "only docs", "Summarize the diff.\n\nARGUMENTS: only docs"},
		{"none named, none given", "Summarize the diff.", "", "Summarize the diff."},
		{"never a template", "Say $ARGUMENTS.", "{{ .Secret }} $1", "Say {{ .Secret }} $1."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, project.Command{Body: tc.body}.Expand(tc.args))
		})
	}
}

func TestParseCommandLine(t *testing.T) {
	for _, tc := range []struct {
		line, name, args string
		ok               bool
	}{
		{"/review src/a.go  ", "review", "src/a.go", true},
		{"/fix-issue 123 high", "fix-issue", "123 high", true},
		{" /tmp is full", "", "", false},
		{"/help", "help", "", true},
		{"/etc/hosts is a file", "", "", false},
		{"/", "", "", false},
		{"review", "", "", false},
	} {
		name, args, ok := project.ParseCommandLine(tc.line)
		assert.Equal(t, tc.ok, ok, tc.line)
		assert.Equal(t, tc.name, name, tc.line)
		assert.Equal(t, tc.args, args, tc.line)
	}
}

func TestLoadCommands(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".claude/commands/review.md":  "---\ndescription: Review a file\nargument-hint: [file]\nallowed-tools: Read, Grep, Bash(git diff:*)\nmodel: haiku\n---\nReview $1.",
		".claude/commands/plain.md":   "# Explain the code\nExplain $ARGUMENTS.",
		".claude/commands/colon.md":   "---\ndescription: Fix: a bug\n---\nFix it.",
		".claude/commands/empty.md":   "---\ndescription: Nothing\n---\n",
		".claude/commands/notes.txt":  "not a command",
		".claude/commands/both.md":    "---\ndescription: claude's\n---\nc",
		".offshoot/commands/both.md":  "---\ndescription: offshoot's\n---\no",
		"home/.claude/commands/me.md": "Mine.",
	})
	c := project.LoadCommands(project.Options{Dir: dir, HomeDir: filepath.Join(dir, "home")})
	var names []string
	for _, k := range c.All {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"both", "colon", "me", "plain", "review"}, names)
	review, ok := c.Find("review")
	require.True(t, ok)
	assert.Equal(t, project.Command{Name: "review", Description: "Review a file", ArgumentHint: "[file]", Body: "Review $1.",
		AllowedTools: []string{"Read", "Grep", "Bash(git diff:*)"}, Model: "haiku", Path: review.Path, Source: "project"}, review)
	plain, _ := c.Find("plain")
	assert.Equal(t, "Explain the code", plain.Description)
	both, _ := c.Find("both")
	assert.Equal(t, "offshoot's", both.Description)
	colon, _ := c.Find("colon")
	assert.Equal(t, "Fix: a bug", colon.Description)
	me, _ := c.Find("me")
	assert.Equal(t, "user", me.Source)
	requireEach(t, []string{"colon.md: the frontmatter is not valid YAML"}, c.Warnings)
	requireEach(t, []string{"empty.md: the command has no text", ".claude/commands/both.md: command /both is defined by"}, c.LeftOut)
}
