package agents_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/tools"
)

// tree writes files (slash-separated paths under a new directory, mapped
// to their contents) and returns the directory.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
	return root
}

// agentFile returns the text of a minimal agent file.
func agentFile(name, description, prompt string, extra ...string) string {
	var b strings.Builder
	b.WriteString("---\nname: " + name + "\ndescription: " + description + "\n")
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	b.WriteString("---\n\n" + prompt + "\n")
	return b.String()
}

// messages returns the Error texts of ds.
func messages(ds []*agents.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Error()
	}
	return out
}

// mustFind returns the definition called name.
func mustFind(t testing.TB, r *agents.Registry, name string) agents.Definition {
	t.Helper()
	def, err := r.Find(name)
	require.NoError(t, err)
	return def
}

type noParams struct{}

type noResult struct{}

// toolset returns a toolset of tools with the given names, in order.
func toolset(t testing.TB, names ...string) tools.Toolset {
	t.Helper()
	var ts []tools.Tool
	for _, n := range names {
		tool, err := tools.New(n, "A tool called "+n+".",
			func(context.Context, *tools.Invocation, noParams) (tools.Result[noResult], error) {
				return tools.OK("done", noResult{}), nil
			})
		require.NoError(t, err)
		ts = append(ts, tool)
	}
	set, err := tools.NewToolset(ts...)
	require.NoError(t, err)
	return set
}
