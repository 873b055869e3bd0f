package frontmatter

import "strings"

// SplitToolList splits a tools value written as text: entries are
// separated by commas or spaces, except inside parentheses, as in
// "Read, Bash(git add:*, git commit:*)". Entries are trimmed; empty ones
// are dropped.
func SplitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if e := strings.TrimSpace(s[start:end]); e != "" {
			out = append(out, e)
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}
