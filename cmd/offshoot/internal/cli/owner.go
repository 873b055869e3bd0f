package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// A store can come with a repository: a cloned project's
// .offshoot/sessions.db is whatever its authors put there, sessions
// updated "last" in the year 2100 included. So run and chat tag the
// sessions they make with a token of the user's own, kept in the user's
// home (OwnerPath), and --resume without an id carries on only a session
// that carries it: one this user made. A session named by its id is
// carried on whatever made it — the user named it.

// OwnerTag is the tag that holds the token.
const OwnerTag = "offshoot.owner"

// OwnerPath is where, under the home directory, the token is kept.
const OwnerPath = ".offshoot/owner"

var ownerToken = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Owner returns the user's token, made on first use; "" when the home
// directory has none and cannot keep one (then resuming without an id
// is refused, and sessions are not tagged).
func (e *Env) Owner() (string, error) {
	if e.HomeDir == "" {
		return "", nil
	}
	path := filepath.Join(e.HomeDir, filepath.FromSlash(OwnerPath))
	data, err := regfile.Read(path, 64)
	if errors.Is(err, fs.ErrNotExist) {
		return makeOwner(path)
	}
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(data))
	if !ownerToken.MatchString(token) {
		return "", errors.New(e.Show(path) + " does not hold an owner token (32 hexadecimal digits); remove it, and a new one is made")
	}
	return token, nil
}

// makeOwner writes a new token at path, or reads the one another process
// wrote first.
func makeOwner(path string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	f, err := regfile.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		data, err := regfile.Read(path, 64)
		if err != nil {
			return "", err
		}
		if t := strings.TrimSpace(string(data)); ownerToken.MatchString(t) {
			return t, nil
		}
		return "", errors.New(path + " does not hold an owner token; remove it, and a new one is made")
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return token, f.Close()
}
