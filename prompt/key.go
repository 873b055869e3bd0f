package prompt

import (
	"fmt"
	"strings"
)

// checkKey reports why key does not match ^[a-z0-9][a-z0-9._-]{0,63}$, the
// pattern of namespaces and of prompt and section keys, or nil. what names
// the key in the message ("namespace", "prompt key", "section key").
func checkKey(what, key string) error {
	if key == "" || len(key) > 64 {
		return fmt.Errorf("%s %q must be 1 to 64 characters long (lower-case letters, digits, '.', '_' or '-', starting with a letter or digit)", what, key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return fmt.Errorf("%s %q must contain only lower-case letters, digits, '.', '_' and '-', and start with a letter or digit", what, key)
		}
	}
	return nil
}

// keyFromTitle derives a section key from a title: lower case, runs of
// other characters replaced by one '-', trimmed to start with a letter or
// digit, at most 64 characters. It returns "" when the title has no ASCII
// letter or digit.
func keyFromTitle(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		case (r == '.' || r == '_') && b.Len() > 0 && !dash:
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	key := b.String()
	if len(key) > 64 {
		key = key[:64]
	}
	return strings.TrimRight(key, "._-")
}
