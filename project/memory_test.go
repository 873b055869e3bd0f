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

// writeTree writes files (slash paths relative to dir) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}

// names returns the names of the files read.
func names(m *project.Memory) []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Name)
	}
	return out
}

// leftOut returns "path: reason" for each file left out.
func leftOut(m *project.Memory) []string {
	var out []string
	for _, l := range m.LeftOut {
		out = append(out, l.Path+": "+l.Reason)
	}
	return out
}

func TestLoadMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string // under the repository; home/ is the home
		sub     string            // the directory run in, under the repository
		want    []string
		wantOut []string
	}{
		{
			name: "every kind, user first, root down to the directory",
			files: map[string]string{
				"home/.claude/CLAUDE.md": "user", ".git/HEAD": "x", "CLAUDE.md": "root", "AGENTS.md": "agents",
				"CLAUDE.local.md": "local", "api/CLAUDE.md": "api", "api/.claude/CLAUDE.md": "api claude", "other/CLAUDE.md": "no",
			},
			sub:  "api",
			want: []string{"~/.claude/CLAUDE.md", "CLAUDE.md", "AGENTS.md", "CLAUDE.local.md", "api/CLAUDE.md", "api/.claude/CLAUDE.md"},
		},
		{
			name:    ".offshoot wins over .claude",
			files:   map[string]string{".claude/CLAUDE.md": "c", ".offshoot/CLAUDE.md": "o"},
			want:    []string{".offshoot/CLAUDE.md"},
			wantOut: []string{".claude/CLAUDE.md: shadowed by .offshoot/CLAUDE.md, which offshoot reads instead"},
		},
		{
			name:  "imports relative to the importer, in order, each once",
			files: map[string]string{"CLAUDE.md": "See @docs/a.md and @AGENTS.md.\n", "AGENTS.md": "agents", "docs/a.md": "a @b.md", "docs/b.md": "b"},
			want:  []string{"CLAUDE.md", "docs/a.md", "docs/b.md", "AGENTS.md"},
		},
		{
			name:  "cycles end",
			files: map[string]string{"CLAUDE.md": "@a.md", "a.md": "@b.md", "b.md": "@a.md @CLAUDE.md"},
			want:  []string{"CLAUDE.md", "a.md", "b.md"},
		},
		{
			name: "depth five",
			files: map[string]string{"CLAUDE.md": "@1.md", "1.md": "@2.md", "2.md": "@3.md", "3.md": "@4.md", "4.md": "@5.md",
				"5.md": "@6.md", "6.md": "six"},
			want:    []string{"CLAUDE.md", "1.md", "2.md", "3.md", "4.md", "5.md"},
			wantOut: []string{"6.md: imported by 5.md, more than 5 imports deep"},
		},
		{
			name:  "not in code, not an e-mail, not a missing file",
			files: map[string]string{"CLAUDE.md": "```\n@a.md\n```\n`@b.md` me@c.md @missing.md @d.md", "a.md": "a", "b.md": "b", "c.md": "c", "d.md": "d"},
			want:  []string{"CLAUDE.md", "d.md"},
		},
		{
			name:    "outside the project",
			files:   map[string]string{"CLAUDE.md": "@../home/secret.md @~/.ssh/id_rsa @/etc/passwd", "home/secret.md": "s"},
			sub:     "",
			want:    []string{"CLAUDE.md"},
			wantOut: []string{"~/.ssh/id_rsa: imported by CLAUDE.md: outside the project; only files inside it are imported", "/etc/passwd: imported by CLAUDE.md: outside the project; only files inside it are imported"},
		},
		{
			name:  "the user's file imports from the home",
			files: map[string]string{"home/.claude/CLAUDE.md": "@~/notes.md", "home/notes.md": "n"},
			want:  []string{"~/.claude/CLAUDE.md", "~/notes.md"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			repo := filepath.Join(base, "repo")
			home := filepath.Join(repo, "home")
			if tc.name == "outside the project" {
				home = filepath.Join(base, "home")
				tc.files["../home/secret.md"] = "s"
			}
			writeTree(t, repo, tc.files)
			m := project.LoadMemory(project.Options{Dir: filepath.Join(repo, tc.sub), HomeDir: home})
			if tc.name == "outside the project" {
				assert.NotContains(t, names(m), "../home/secret.md")
				assert.Equal(t, tc.want, names(m))
				assert.Contains(t, leftOut(m), "../home/secret.md: imported by CLAUDE.md: outside the project; only files inside it are imported")
				for _, w := range tc.wantOut {
					assert.Contains(t, leftOut(m), w)
				}
				return
			}
			assert.Equal(t, tc.want, names(m))
			assert.Equal(t, tc.wantOut, leftOut(m))
		})
	}
}

func TestLoadMemoryRefusesWhatIsNoFileOfTheProject(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	writeTree(t, repo, map[string]string{"a.md": "a", "big.md": strings.Repeat("x", 300<<10), "bin.md": "a\x00b"})
	writeTree(t, base, map[string]string{"outside.md": "secret"})
	require.NoError(t, os.Symlink(filepath.Join(base, "outside.md"), filepath.Join(repo, "CLAUDE.local.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(repo, "fifo.md"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("@fifo.md @big.md @bin.md @a.md"), 0o644))

	m := project.LoadMemory(project.Options{Dir: repo})
	assert.Equal(t, []string{"CLAUDE.md", "a.md"}, names(m))
	assert.Equal(t, []string{
		"fifo.md: not a regular file",
		"big.md: it would take the memory past 256 KiB in all; shorten it, or import less",
		"bin.md: not text",
		"CLAUDE.local.md: a symbolic link that leads out of the project",
	}, leftOut(m))
	for _, f := range m.Files {
		assert.NotContains(t, f.Content, "secret")
	}
}

func TestMemoryText(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"CLAUDE.md": "Run go test.\n@AGENTS.md", "AGENTS.md": "Use {{ .Text }} as is."})
	m := project.LoadMemory(project.Options{Dir: dir})
	assert.Equal(t, "Codebase and user instructions are shown below. Follow them: they take precedence over the general guidance above.\n\n"+
		"Contents of CLAUDE.md (project instructions, checked into the codebase):\n\nRun go test.\n@AGENTS.md\n\n"+
		"Contents of AGENTS.md (imported by CLAUDE.md):\n\nUse {{ .Text }} as is.", m.Text())
	assert.Empty(t, project.LoadMemory(project.Options{Dir: t.TempDir()}).Text())
	var none *project.Memory
	assert.Empty(t, none.Text())
}
