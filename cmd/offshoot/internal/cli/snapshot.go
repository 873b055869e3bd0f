package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// SnapshotRegistry returns a registry of the types offshoot's sessions
// hold, by their stable names: those of every reducer set of the main
// agent's tools (the files, the plan, the Task tool's records) and the
// runner's records.
func SnapshotRegistry() (*serde.Registry, error) {
	sets, err := SessionReducers()
	if err != nil {
		return nil, err
	}
	reg := serde.NewRegistry()
	var errs []error
	for _, set := range sets {
		errs = append(errs, set.Name(reg))
	}
	return reg, errors.Join(errs...)
}

// SaveSnapshot writes the state of s to the file path as snapshot JSON
// (session.MarshalSnapshot) that 'offshoot snapshot show' reads: the
// runner's records, with every conversation, the files and the plan. The
// file is written whole or not at all: to a temporary file beside it,
// then renamed into place.
func SaveSnapshot(path string, s *session.Session) error {
	reg, err := SnapshotRegistry()
	if err != nil {
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
