package mcp

import (
	"fmt"
	"strings"
)

// expand replaces ${VAR} and ${VAR:-default} in s, as Claude Code does in
// .mcp.json: ${VAR} is the value of the environment variable VAR, which must
// be set; ${VAR:-default} is VAR's value, or default when VAR is unset or
// empty (as in a shell). A bare $VAR is left as it is, and so is a "${"
// without its closing "}". lookup reads the environment.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		start := strings.Index(s, "${")
		if start < 0 {
			break
		}
		end := strings.IndexByte(s[start+2:], '}')
		if end < 0 {
			break
		}
		b.WriteString(s[:start])
		ref := s[start+2 : start+2+end]
		s = s[start+2+end+1:]
		if ref == "" {
			b.WriteString("${}")
			continue
		}
		name, def, hasDefault := strings.Cut(ref, ":-")
		value, set := lookup(name)
		switch {
		case hasDefault && value == "":
			value = def
		case !set:
			return "", fmt.Errorf("environment variable %s is not set; set it, or give a default with ${%s:-value}", name, name)
		}
		b.WriteString(value)
	}
	b.WriteString(s)
	return b.String(), nil
}
