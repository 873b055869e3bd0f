package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// storeIgnore is the .gitignore offshoot writes beside the project's store
// when it makes the store: the sessions hold the user's conversations and
// files, not the project's, and git should not offer to commit them.
const storeIgnore = `# offshoot's session store: your conversations and the agents' files,
# not the project's (see 'offshoot sessions').
sessions.db
sessions.db-wal
sessions.db-shm
sessions.db-journal
`

// writeStoreIgnore writes storeIgnore to .gitignore in dir, unless
// something is there already: a user's own file is never replaced, and a
// link is never followed.
func writeStoreIgnore(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(storeIgnore)
	return errors.Join(err, f.Close())
}

// checkProjectStore does what opening the project's store at path calls
// for: it writes the .gitignore beside a store it just made (created), and
// warns when git tracks the store — a file that came with the repository,
// written by anyone, and that git shows as modified once offshoot writes
// to it.
func (e *Env) checkProjectStore(path string, created bool) {
	if created {
		if err := writeStoreIgnore(filepath.Dir(path)); err != nil {
			e.Warn("could not write %s beside the session store, so git may offer to commit your sessions: %v", Printable(e.Show(filepath.Join(filepath.Dir(path), ".gitignore"))), err)
		}
	}
	if tracked, ok := gitTracked(path); ok && tracked {
		e.Warn("%s is tracked by git: it came with the repository (anyone may have written its sessions), and git shows it as modified once offshoot writes to it. "+
			"Keep your sessions out of the repository: 'git rm --cached %s' and add it to .gitignore, or keep them elsewhere with --store",
			SessionsPath, SessionsPath)
	}
}
