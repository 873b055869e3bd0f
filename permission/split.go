package permission

import "strings"

// splitCommand splits a shell command into the commands it chains: on
// &&, ||, ;, |, & and new lines outside quotes (a backslash escapes the
// next character outside single quotes). Parts are trimmed; empty ones
// dropped.
func splitCommand(cmd string) []string {
	var parts []string
	var cur strings.Builder
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			parts = append(parts, t)
		}
		cur.Reset()
	}
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
			cur.WriteByte(c)
		case c == '\\' && i+1 < len(cmd):
			cur.WriteByte(c)
			cur.WriteByte(cmd[i+1])
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == '&' && (i > 0 && cmd[i-1] == '>' || i+1 < len(cmd) && cmd[i+1] == '>'):
			cur.WriteByte(c) // a redirection: 2>&1, &>file
		case c == ';' || c == '\n' || c == '|' || c == '&':
			flush()
			if i+1 < len(cmd) && (c == '|' || c == '&') && cmd[i+1] == c {
				i++
			}
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return parts
}

// substitutes reports whether a command substitutes another's output
// ($(…), `…`, <(…), >(…)): such a part runs a command no prefix shows.
func substitutes(part string) bool {
	return strings.Contains(part, "$(") || strings.Contains(part, "`") || strings.Contains(part, "<(") || strings.Contains(part, ">(")
}
