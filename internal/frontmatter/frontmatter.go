// Package frontmatter reads Markdown files that open with YAML frontmatter
// between --- lines, as Claude Code's agent files, skills and slash
// commands do, tolerantly: a byte order mark, CRLF line ends and invalid
// UTF-8 are normalized; frontmatter that is not valid YAML (an unquoted
// description holding ": ", say) is read line by line instead. The caller
// turns the problems found into messages about its own kind of file.
package frontmatter

import (
	"strings"
	"unicode/utf8"
)

// Document is a file split into its frontmatter and its body.
type Document struct {
	// Front holds the frontmatter lines, without the fences, dedented by
	// their common indentation; FrontLine is the file line of Front[0].
	Front     []string
	FrontLine int
	// Body is the text after the closing fence, trimmed.
	Body string
}

// Problem says why a file could not be split.
type Problem int

// The problems of Split.
const (
	// None: the file was split.
	None Problem = iota
	// Missing: the file has no frontmatter at all.
	Missing
	// NotFirst: the opening --- comes after blank lines or is indented,
	// so Claude Code would not read it as frontmatter either.
	NotFirst
	// Unclosed: the frontmatter is never closed by a --- line.
	Unclosed
	// TooLarge: the frontmatter is longer than the limit given to Split.
	TooLarge
)

// Normalize returns data as text with a leading byte order mark removed,
// CRLF and lone CR line ends turned into LF, and invalid UTF-8 replaced;
// invalidUTF8 reports the replacement.
func Normalize(data []byte) (text string, invalidUTF8 bool) {
	text = string(data)
	text = strings.TrimPrefix(text, "\uFEFF")
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	if !utf8.ValidString(text) {
		return strings.ToValidUTF8(text, "\uFFFD"), true
	}
	return text, false
}

// isFence reports whether line, trimmed, is three or more dashes.
func isFence(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 3 && strings.Trim(t, "-") == ""
}

// Split finds the frontmatter of text (normalized). As Claude Code reads
// these files, the opening fence is the file's first line, unindented;
// the closing fence may be longer than three dashes, and the file need
// not end with a newline. Frontmatter of more than limit bytes is
// TooLarge. On a problem, line is the file line it concerns and size the
// frontmatter's size for TooLarge.
func Split(text string, limit int) (doc Document, p Problem, line, size int) {
	lines := strings.Split(text, "\n")
	open := 0
	for open < len(lines) && strings.TrimSpace(lines[open]) == "" {
		open++
	}
	if open == len(lines) || !isFence(lines[open]) {
		return Document{}, Missing, open + 1, 0
	}
	if open > 0 || strings.TrimLeft(lines[open], " \t") != lines[open] || !strings.HasPrefix(lines[open], "---") {
		return Document{}, NotFirst, open + 1, 0
	}
	closing := -1
	for i := open + 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			closing = i
			break
		}
	}
	if closing < 0 {
		return Document{}, Unclosed, open + 1, 0
	}
	if size := len(strings.Join(lines[open+1:closing], "\n")); size > limit {
		return Document{}, TooLarge, open + 1, size
	}
	return Document{
		Front:     dedent(lines[open+1 : closing]),
		FrontLine: open + 2,
		Body:      strings.TrimSpace(strings.Join(lines[closing+1:], "\n")),
	}, None, 0, 0
}

// dedent removes the indentation (spaces and tabs) that every non-blank
// line of lines shares, so that a frontmatter indented as a whole reads
// like one that is not.
func dedent(lines []string) []string {
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = indent, false
			continue
		}
		for !strings.HasPrefix(indent, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
		if prefix == "" {
			break
		}
	}
	if prefix == "" {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, prefix)
	}
	return out
}
