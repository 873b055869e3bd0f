package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// At a terminal, the files that configure what runs next get a question
// of their own, asked after the yes to the other changes (or alone when
// there are no others), listing them.
func TestWriteBackAsksApartForConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name      string
		writes    map[string]string
		answers   []bool
		questions []string
		code      int
		written   map[string]string // the directory afterwards, besides README.md
		readme    string
	}{
		{"yes and yes", map[string]string{"README.md": "new\n", ".envrc": "x\n", ".mcp.json": "{}\n"}, []bool{true, true},
			[]string{"Write these changes to DIR (0 created, 1 edited, 0 deleted; 2 left: .envrc (configures what runs next: written only when named), .mcp.json (configures what runs next: written only when named))?", "Also write the 2 files that configure what runs next: .envrc, .mcp.json?"},
			0, map[string]string{".envrc": "x\n", ".mcp.json": "{}\n"}, "new\n"},
		{"yes and no", map[string]string{"README.md": "new\n", ".envrc": "x\n"}, []bool{true, false},
			[]string{"Write these changes to DIR (0 created, 1 edited, 0 deleted; 1 left: .envrc (configures what runs next: written only when named))?", "Also write the 1 file that configures what runs next: .envrc?"},
			1, map[string]string{}, "new\n"},
		{"no", map[string]string{"README.md": "new\n", ".envrc": "x\n"}, []bool{false},
			[]string{"Write these changes to DIR (0 created, 1 edited, 0 deleted; 1 left: .envrc (configures what runs next: written only when named))?"},
			1, map[string]string{}, "old\n"},
		{"only configuration", map[string]string{".github/workflows/ci.yml": "on: push\n"}, []bool{true},
			[]string{"Also write the 1 file that configures what runs next: .github/workflows/ci.yml?"},
			0, map[string]string{".github/workflows/ci.yml": "on: push\n"}, "old\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("old\n"), 0o644))
			set, err := vfs.Tools(vfs.Options{Mounts: []vfs.Mount{{HostPath: dir}}, AllowedRoots: []string{dir}})
			require.NoError(t, err)
			s, err := session.New()
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, set.Install(context.Background(), s))
			for p, content := range tc.writes {
				require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: p, Content: content}))
			}
			var asked []string
			var out bytes.Buffer
			env := &cli.Env{ProjectDir: dir, Getenv: func(string) string { return "" }}
			err = env.RunWriteBack(cli.WriteBack{
				Snapshot: s.Snapshot(), Dir: dir, Out: &out, Prefix: "offshoot test: ",
				Ask: func(q string) bool {
					asked = append(asked, q)
					if len(asked) > len(tc.answers) {
						return false
					}
					return tc.answers[len(asked)-1]
				},
			})
			assert.Equal(t, tc.code, cli.Code(err, true), "%v\n%s", err, out.String())
			var want []string
			for _, q := range tc.questions {
				want = append(want, strings.ReplaceAll(q, "DIR", env.Show(dir)))
			}
			assert.Equal(t, want, asked)
			data, err := os.ReadFile(filepath.Join(dir, "README.md"))
			require.NoError(t, err)
			assert.Equal(t, tc.readme, string(data))
			for p := range tc.writes {
				if p == "README.md" {
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, p))
				if content, ok := tc.written[p]; ok {
					require.NoError(t, err, p)
					assert.Equal(t, content, string(data))
				} else {
					assert.True(t, os.IsNotExist(err), "%s is not written", p)
				}
			}
		})
	}
}
