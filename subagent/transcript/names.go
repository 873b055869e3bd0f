package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// maxNameLen bounds the file-name form of an id.
const maxNameLen = 120

// safeName returns id as a file name that is safe whatever id holds: its
// ASCII lowercase letters, digits, '-' and '_' as they are, every other
// byte as %XX (so distinct ids give distinct names, also on a file system
// that ignores case), "%" for the empty id, and a name longer than
// maxNameLen cut and ended with "~" and a hash of id. The result is never
// "." or "..", holds no separator and no glob metacharacter.
func safeName(id string) string {
	if id == "" {
		return "%"
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		const digits = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&0xf])
	}
	name := b.String()
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(id))
	cut := name[:maxNameLen-17]
	if i := strings.LastIndexByte(cut, '%'); i >= len(cut)-2 {
		cut = cut[:i] // do not split an escape
	}
	return cut + "~" + hex.EncodeToString(sum[:8])
}

// base is the path of the files of agent id in the delegation tree whose
// root session is root, without their extension.
func (d Dir) base(root, id string) string {
	return filepath.Join(string(d), safeName(root), "subagents", "agent-"+safeName(id))
}

// The extensions of an agent's files.
const (
	extTranscript = ".jsonl"
	extMeta       = ".meta.json"
	extOutput     = ".output"
)
