package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxDescription is the longest tool description accepted, in characters.
const MaxDescription = 1024

// checkName reports why name is not a valid tool name
// (^[A-Za-z0-9_-]{1,64}$), or nil.
func checkName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("tools: tool name %q must be 1 to 64 characters long (ASCII letters, digits, '_' or '-')", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("tools: tool name %q may contain only ASCII letters, digits, '_' and '-'", name)
		}
	}
	return nil
}

// cleanDescription trims description and checks its length.
func cleanDescription(name, description string) (string, error) {
	d := strings.TrimSpace(description)
	switch n := utf8.RuneCountInString(d); {
	case n == 0:
		return "", fmt.Errorf("tools: tool %q needs a description telling the model what it does", name)
	case n > MaxDescription:
		return "", fmt.Errorf("tools: the description of tool %q is %d characters long; shorten it to at most %d", name, n, MaxDescription)
	}
	return d, nil
}
