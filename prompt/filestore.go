package prompt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/serde"
)

// FileStore is an OverrideStore keeping one JSON file per override under a
// directory the user names, conventionally ".offshoot/prompts/overrides":
//
//	{Dir}/{ns}/{key}/{tag}.json
//
// Writes are atomic (a temporary file in the same directory, then a
// rename), so a render never reads a half-written override. The zero
// FileStore is not usable: set Dir.
type FileStore struct {
	// Dir is the root directory of the overrides.
	Dir string
}

// Path returns the file that holds the override (ns, key, tag).
func (s FileStore) Path(ns, key, tag string) (string, error) {
	if s.Dir == "" {
		return "", errors.New("prompt: FileStore needs a Dir, such as \".offshoot/prompts/overrides\"")
	}
	for _, k := range [][2]string{{"namespace", ns}, {"prompt key", key}, {"override tag", tag}} {
		if err := checkKey(k[0], k[1]); err != nil {
			return "", fmt.Errorf("prompt: %w", err)
		}
	}
	return filepath.Join(s.Dir, ns, key, tag+".json"), nil
}

// maxOverrideBytes is the most Load reads of an override file.
const maxOverrideBytes = 4 << 20

// Load reads the override (ns, key, tag); it returns nil and no error when
// there is none. A file that is not a valid override is an error.
func (s FileStore) Load(ns, key, tag string) (*Override, error) {
	path, err := s.Path(ns, key, tag)
	if err != nil {
		return nil, err
	}
	data, err := regfile.Read(path, maxOverrideBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prompt: reading override: %w", err)
	}
	o, err := serde.Decode[Override](data)
	if err != nil {
		return nil, fmt.Errorf("prompt: override file %s is not valid: %w", path, err)
	}
	if o.NS != ns || o.Key != key || o.Tag != tag {
		return nil, fmt.Errorf("prompt: override file %s is for %s/%s tag %q, not %s/%s tag %q", path, o.NS, o.Key, o.Tag, ns, key, tag)
	}
	return &o, nil
}

// Save writes o to its file (from o.NS, o.Key and o.Tag) atomically,
// creating directories as needed.
func (s FileStore) Save(o *Override) error {
	if o == nil {
		return errors.New("prompt: FileStore.Save got a nil override")
	}
	path, err := s.Path(o.NS, o.Key, o.Tag)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return fmt.Errorf("prompt: encoding override: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("prompt: saving override: %w", err)
	}
	return writeAtomic(dir, path, append(data, '\n'))
}

// Delete removes the override (ns, key, tag); removing one that does not
// exist is not an error.
func (s FileStore) Delete(ns, key, tag string) error {
	path, err := s.Path(ns, key, tag)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("prompt: deleting override: %w", err)
	}
	return nil
}

// writeAtomic writes data to a temporary file in dir, syncs it and renames
// it over path.
func writeAtomic(dir, path string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("prompt: saving override: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("prompt: saving override: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("prompt: saving override: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("prompt: saving override: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("prompt: saving override: %w", err)
	}
	return nil
}
