package vfs

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/session"
)

// Export writes the files a snapshot holds into the host directory dir
// (created when missing), each at its VFS path, replacing files of the
// same name and leaving other files alone. It never writes outside dir:
// every path is checked to be canonical, and every write goes through an
// os.Root opened on dir, which refuses to follow symlinks that leave it.
// On an error, the files written before it stay.
func Export(snap session.Snapshot, dir string) error {
	return FilesOf(snap).Export(dir)
}

// Export writes t's files into dir; see the package function Export.
func (t Table) Export(dir string) error {
	if dir == "" {
		return fmt.Errorf("vfs: export needs a directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("vfs: export: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("vfs: export: %w", err)
	}
	defer root.Close()
	for f := range t.under("") {
		if !isCanonical(f.Path) {
			return fmt.Errorf("vfs: export: refusing the non-canonical path %q", f.Path)
		}
		if d := path.Dir(f.Path); d != "." {
			if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
				return fmt.Errorf("vfs: export %s: %w", f.Path, err)
			}
		}
		if err := root.WriteFile(filepath.FromSlash(f.Path), []byte(f.Content), 0o644); err != nil {
			return fmt.Errorf("vfs: export %s: %w", f.Path, err)
		}
	}
	return nil
}
