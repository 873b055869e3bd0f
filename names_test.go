package offshoot_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxExportedNames is the most top-level exported names the library's
// packages may declare. The bar of 450 (ARCHITECTURE Revision 4) was set
// on the surface the review measured: 463 names then, of which 455 remain
// and 8 went (task.CallContext, Data, Stats; tools.RawExample;
// store.Journal, JournalOptions, NewJournal; postgres.Options). The faces
// added since, each asked for by a spec, brought 103: model/anthropic
// and its test server 10 (anthropic.md); in runner, context management 9
// (context.md), runs that wait for a person 3 and 1 in the root
// (claude-code.md), and a worker running a child through the runner's
// own code 3 (Render, Sets, Recorded); hooks 21 (with Notification),
// permission 15, project 19 and agents 2 (claude-code.md); inspector 3
// (inspector.md); store/journal 3 and the store's limits and checks 4 (a
// backend a stranger can implement); model's providers and windows 5;
// remote.Stats, session.Commit, subagent.SetUp and webfetch 2. Each
// package was read for a name no user needs: model.DefaultWindow went
// (-1); the rest are named by the specs, the docs or the examples, or are
// types and values of what users hold (an event, a field's type, a
// result's enum). This is the ceiling for that surface (455 + 102); it is
// a ratchet: lower it as names are unexported, and raise it only by
// deciding to, for a name a user needs.
const maxExportedNames = 557

// The library's surface stays small: the exported top-level names —
// types, functions, variables and constants — of its non-test files,
// outside internal/, cmd/, examples/ and the bench module, are counted
// with go/ast.
func TestExportedNames(t *testing.T) {
	n := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "internal", "cmd", "examples", "testdata", "bench":
				return filepath.SkipDir
			}
			if strings.HasPrefix(d.Name(), ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					n++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							n++
						}
					case *ast.ValueSpec:
						for _, name := range s.Names {
							if name.IsExported() {
								n++
							}
						}
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	t.Logf("%d exported names", n)
	require.LessOrEqual(t, n, maxExportedNames, "exported names in the library's packages: unexport what users do not need")
}
