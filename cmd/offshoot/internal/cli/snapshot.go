package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// SaveSnapshot writes the state of s to the file path as snapshot JSON
// (session.MarshalSnapshot) that 'offshoot snapshot show' reads: the
// runner's records, with every conversation, the files and the plan. The
// file is written whole or not at all: to a temporary file beside it,
// then renamed into place.
func SaveSnapshot(path string, s *session.Session) error {
	reg := serde.NewRegistry()
	if err := errors.Join(runner.Reducers().Name(reg), vfs.Reducers(vfs.Table{}).Name(reg), planning.Reducers().Name(reg)); err != nil {
		return fmt.Errorf("the snapshot's types: %w; this is a bug, please report it", err)
	}
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	if err != nil {
		return fmt.Errorf("cannot encode the session: %w; this is a bug, please report it", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w; give a file in a directory you can write to", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w; give a file in a directory you can write to", path, err)
	}
	return nil
}
