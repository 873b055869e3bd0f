package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// A project's store may have come with the repository it was cloned from:
// committed by anyone, reused without a word, and shown as modified by git
// at the next run. offshoot tells when git tracks it, reading the
// repository's index (the list of what git tracks) itself: the index is
// untrusted too, so what is read is bounded, and an index that cannot be
// read within the bounds leaves the answer unknown, quietly.

// Bounds on reading a repository's index. An entry takes at least 62 bytes,
// and its path no more than the file holds (version 2 and 3), so memory
// stays within a few times the file's size. Version 4 writes a path as
// what it keeps of the previous one plus a suffix, so paths can grow by a
// byte an entry: a few entries bound that quadratic growth.
const (
	maxIndexBytes     = 16 << 20
	maxIndexEntriesV4 = 4096
	maxGitFileBytes   = 4 << 10 // a worktree's .git file: "gitdir: PATH"
)

// gitTracked reports whether git tracks the file at path (absolute): ok is
// false when that is unknown (no repository, an index that cannot be
// read within the bounds).
func gitTracked(path string) (tracked, ok bool) {
	root, gitDir, found := findGitDir(filepath.Dir(path))
	if !found {
		return false, false
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false, false
	}
	idx, err := readIndex(filepath.Join(gitDir, "index"))
	if err != nil {
		return false, false
	}
	name := filepath.ToSlash(rel)
	for _, e := range idx.Entries {
		if e.Name == name {
			return true, true
		}
	}
	return false, true
}

// findGitDir finds the repository dir is in: the directory holding .git
// (root), and the git directory (.git itself, or where a worktree's .git
// file points).
func findGitDir(dir string) (root, gitDir string, found bool) {
	for {
		dotGit := filepath.Join(dir, ".git")
		if info, err := os.Lstat(dotGit); err == nil {
			switch {
			case info.IsDir():
				return dir, dotGit, true
			case info.Mode().IsRegular():
				data, err := regfile.Read(dotGit, maxGitFileBytes)
				if err != nil {
					return "", "", false
				}
				target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
				target = strings.TrimSpace(target)
				if !ok || target == "" {
					return "", "", false
				}
				if !filepath.IsAbs(target) {
					target = filepath.Join(dir, target)
				}
				return dir, target, true
			}
			return "", "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

// readIndex decodes the index file at path within the bounds.
func readIndex(path string) (*index.Index, error) {
	data, err := regfile.Read(path, maxIndexBytes)
	if err != nil {
		return nil, err
	}
	// The header: "DIRC", the version, the number of entries.
	if len(data) < 12 || !bytes.Equal(data[:4], []byte("DIRC")) {
		return nil, errors.New("not an index")
	}
	version, count := binary.BigEndian.Uint32(data[4:8]), binary.BigEndian.Uint32(data[8:12])
	if uint64(count)*62 > uint64(len(data)) || version == 4 && count > maxIndexEntriesV4 {
		return nil, errors.New("the index is larger than offshoot reads")
	}
	idx := &index.Index{}
	if err := decodeIndex(bytes.NewReader(data), idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// decodeIndex runs go-git's decoder, which must not take the process down
// on a file it was not written for.
func decodeIndex(r io.Reader, idx *index.Index) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("the index could not be decoded")
		}
	}()
	return index.NewDecoder(bufio.NewReader(r)).Decode(idx)
}
