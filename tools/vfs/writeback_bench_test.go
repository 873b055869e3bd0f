package vfs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// mountedProject returns a directory of n files of about 10 KB, mounted
// into a session that then edits edits of them (one line each).
func mountedProject(b *testing.B, n, edits int) (string, *session.Session) {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		var c strings.Builder
		for l := range 200 {
			fmt.Fprintf(&c, "line %d of file %d: nothing to see here\n", l, i)
		}
		p := filepath.Join(dir, fmt.Sprintf("dir%02d", i/100), fmt.Sprintf("file%04d.txt", i))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(c.String()), 0o644))
	}
	set, err := vfs.Tools(vfs.Options{Mounts: []vfs.Mount{{HostPath: dir, MaxBytes: 64 << 20}}, AllowedRoots: []string{dir}})
	require.NoError(b, err)
	s, err := session.New()
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	require.NoError(b, set.Install(context.Background(), s))
	for i := range edits {
		p := fmt.Sprintf("dir%02d/file%04d.txt", i/100, i)
		f, _ := vfs.Files(s).Get(p)
		content := strings.Replace(f.Content, "line 100 ", "line one hundred ", 1)
		require.NoError(b, s.Dispatch(context.Background(), vfs.FileWritten{Path: p, Content: content}))
	}
	return dir, s
}

// Changes hashes every file of the session: about 4 MB here.
func BenchmarkChanges(b *testing.B) {
	_, s := mountedProject(b, 400, 10)
	snap := s.Snapshot()
	b.SetBytes(int64(400 * 10_000))
	b.ReportAllocs()
	for b.Loop() {
		if n := len(vfs.Changes(snap)); n != 10 {
			b.Fatalf("%d changes", n)
		}
	}
}

// PlanWriteBack reads the host files of the changes only, and diffs them.
func BenchmarkPlanWriteBack(b *testing.B) {
	dir, s := mountedProject(b, 400, 10)
	snap := s.Snapshot()
	b.ReportAllocs()
	for b.Loop() {
		w, err := vfs.PlanWriteBack(snap, dir)
		if err != nil || w.Pending() != 10 || w.Diff() == "" {
			b.Fatal(err)
		}
	}
}
