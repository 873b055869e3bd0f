package vfs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A write-back writes each file into a temporary file beside it, named
// "." + the file's name + tempMark + tempRandom random bytes in lower-case
// hex, and renames it over the file. A write-back killed between the two
// leaves that temporary file, with the new content whole; the next
// write-back removes such leftovers from the directories it writes to.

// tempMark comes between a temporary file's name and its random part.
const tempMark = ".offshoot-"

// tempRandom is how many random bytes end a temporary file's name.
const tempRandom = 6

// tempName returns a new temporary file's path for the file rel (with the
// system's separators).
func tempName(rel string) string {
	var suffix [tempRandom]byte
	_, _ = rand.Read(suffix[:]) // never fails (crypto/rand)
	return filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+tempMark+hex.EncodeToString(suffix[:]))
}

// isLeftover reports whether name (a base name) is one tempName makes: a
// dot, a name of at least one character, tempMark, and 2*tempRandom
// lower-case hex digits, nothing else.
func isLeftover(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok || len(rest) < 1+len(tempMark)+2*tempRandom {
		return false
	}
	random := rest[len(rest)-2*tempRandom:]
	if !strings.HasSuffix(rest[:len(rest)-len(random)], tempMark) {
		return false
	}
	for _, c := range []byte(random) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// removeLeftovers removes, from the directory dir of root (slash-separated,
// "." for the top), the regular files an interrupted write-back left
// (isLeftover), and returns their paths relative to root. A link or
// anything else that is not a regular file is left, and nothing is
// followed: the entries' types are read without following them, and each
// is looked at again (Lstat) just before it is removed. A directory that
// cannot be read is left as it is.
func removeLeftovers(root *os.Root, dir string) []string {
	d, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil
	}
	defer d.Close()
	var removed []string
	for {
		entries, err := d.ReadDir(256)
		for _, e := range entries {
			if !isLeftover(e.Name()) || !e.Type().IsRegular() {
				continue
			}
			rel := path.Join(dir, e.Name())
			info, lerr := root.Lstat(filepath.FromSlash(rel))
			if lerr != nil || !info.Mode().IsRegular() {
				continue
			}
			if root.Remove(filepath.FromSlash(rel)) == nil {
				removed = append(removed, rel)
			}
		}
		if err != nil || len(entries) == 0 {
			return removed
		}
	}
}

// leftoversRemoved words the leftovers a write-back removed for its
// Summary: "removed 1 temporary file an interrupted write-back left
// (.a.go.offshoot-…)"; "" for none.
func leftoversRemoved(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	names := make([]string, 0, min(len(paths), maxListed)+1)
	for i, p := range paths {
		if i == maxListed {
			names = append(names, fmt.Sprintf("and %d more", len(paths)-maxListed))
			break
		}
		names = append(names, clip(p))
	}
	return fmt.Sprintf("removed %d temporary %s an interrupted write-back left (%s)", len(paths), plural(len(paths), "file", "files"), strings.Join(names, ", "))
}
