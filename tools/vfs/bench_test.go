package vfs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// sessionWithFiles returns a session with the VFS reducers and n files of
// lines lines each, spread over directories of 100 files.
func sessionWithFiles(b *testing.B, n, lines int) *session.Session {
	b.Helper()
	s, err := session.New()
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	require.NoError(b, s.Install(context.Background(), vfs.Reducers(vfs.Table{})))
	batch := make([]any, 0, 100)
	for i := range n {
		var c strings.Builder
		for l := range lines {
			if i%10 == 0 && l == lines/2 {
				c.WriteString("the needle is here\n")
				continue
			}
			fmt.Fprintf(&c, "line %d of file %d: nothing to see in this line\n", l, i)
		}
		batch = append(batch, vfs.FileWritten{Path: fmt.Sprintf("dir%03d/file%05d.txt", i/100, i), Content: c.String()})
		if len(batch) == cap(batch) || i == n-1 {
			require.NoError(b, s.Dispatch(context.Background(), batch...))
			batch = batch[:0]
		}
	}
	return s
}

func lookup(b *testing.B, name string) tools.Tool {
	b.Helper()
	set, err := vfs.Tools(vfs.Options{})
	require.NoError(b, err)
	t, ok := set.Lookup(name)
	require.True(b, ok)
	return t
}

// grep over 1,000 files of 200 lines (about 10 MB): one line in every
// tenth file matches.
func BenchmarkGrep(b *testing.B) {
	s := sessionWithFiles(b, 1000, 200)
	grep := lookup(b, "grep")
	inv := &tools.Invocation{Session: s, Bus: s.Bus()}
	for _, tc := range []struct{ name, args string }{
		{"sparse", `{"pattern": "needle"}`},
		{"regexp", `{"pattern": "ne+dle\\s+is"}`},
		{"glob", `{"pattern": "needle", "glob": "dir00[0-4]/*.txt"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			args := json.RawMessage(tc.args)
			for b.Loop() {
				out := grep.Call(context.Background(), inv, args)
				if !out.Success || len(out.Value.(vfs.GrepResult).Matches) == 0 {
					b.Fatal(out.Text)
				}
			}
		})
	}
}

// write_file into a VFS of 100 and of 10,000 files: the cost is flat,
// since a write copies O(log n) nodes of the table, never the table.
// "tool" runs the tool and dispatches its event as the runner does, then
// rolls the session back (O(1)) so that every iteration writes into a
// table of the same size; "event" dispatches a FileWritten that replaces
// an existing file.
func BenchmarkWriteFile(b *testing.B) {
	write := lookup(b, "write_file")
	for _, n := range []int{100, 10_000} {
		s := sessionWithFiles(b, n, 5)
		base := s.Snapshot()
		inv := &tools.Invocation{Session: s, Bus: s.Bus()}
		args := json.RawMessage(`{"file_path": "dir000/new.txt", "content": "hello\nworld\n"}`)
		ctx := context.Background()
		b.Run(fmt.Sprintf("tool/files=%d", n), func(b *testing.B) {
			for b.Loop() {
				out := write.Call(ctx, inv, args)
				if err := s.Dispatch(ctx, out.Events...); err != nil {
					b.Fatal(err)
				}
				if err := s.Rollback(base); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("event/files=%d", n), func(b *testing.B) {
			ev := vfs.FileWritten{Path: "dir000/file00042.txt", Content: "replaced\n"}
			for b.Loop() {
				if err := s.Dispatch(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Forking a session that holds 10,000 files (and closing the child) costs
// the same as forking an empty one: the child shares the table.
func BenchmarkFork(b *testing.B) {
	for _, n := range []int{0, 10_000} {
		s := sessionWithFiles(b, n, 5)
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			for b.Loop() {
				child, err := s.Fork()
				if err != nil {
					b.Fatal(err)
				}
				_ = child.Close()
			}
		})
	}
}

// ls of the root of 10,000 files in 100 directories walks the table once.
func BenchmarkLs(b *testing.B) {
	s := sessionWithFiles(b, 10_000, 1)
	ls := lookup(b, "ls")
	inv := &tools.Invocation{Session: s, Bus: s.Bus()}
	for _, tc := range []struct{ name, args string }{{"root", `{}`}, {"directory", `{"path": "dir042"}`}} {
		b.Run(tc.name, func(b *testing.B) {
			args := json.RawMessage(tc.args)
			for b.Loop() {
				if out := ls.Call(context.Background(), inv, args); !out.Success {
					b.Fatal(out.Text)
				}
			}
		})
	}
}
