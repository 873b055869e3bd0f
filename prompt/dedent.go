package prompt

import "strings"

// dedent removes the indentation common to every non-blank line of s, then
// the blank lines at both ends and trailing white space, so that template
// bodies can be indented like the Go code around them.
func dedent(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	prefix, first := "", true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = indent, false
			continue
		}
		prefix = commonPrefix(prefix, indent)
	}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			lines[i] = ""
			continue
		}
		lines[i] = strings.TrimRight(l[len(prefix):], " \t")
	}
	return trimBlankLines(strings.Join(lines, "\n"))
}

// trimBlankLines removes white-space-only lines at the start of s and all
// white space at its end, keeping the indentation of the first line.
func trimBlankLines[S ~string | ~[]byte](s S) S {
	end := len(s)
	for end > 0 && isSpace(s[end-1]) {
		end--
	}
	s = s[:end]
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			start = i + 1
		} else if !isSpace(s[i]) {
			break
		}
	}
	return s[start:]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func commonPrefix(a, b string) string {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return a[:i]
		}
	}
	return a[:n]
}
