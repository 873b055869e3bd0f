package agents

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxFrontmatter is the largest frontmatter read, in bytes. Real ones,
// long descriptions with examples included, stay well under it.
const maxFrontmatter = 64 << 10

// document is an agent file split into its frontmatter and its body.
type document struct {
	// front holds the frontmatter lines, without the fences, dedented by
	// their common indentation; frontLine is the file line of front[0].
	front     []string
	frontLine int
	// body is the text after the closing fence, trimmed.
	body string
}

// splitError says why a file could not be split.
type splitError struct {
	line    int
	message string
	// notAgent is set when the file has no frontmatter at all: it is most
	// likely not an agent definition (a README beside the agents).
	notAgent bool
}

// normalize returns text with a leading byte order mark removed, CRLF and
// lone CR line ends turned into LF, and invalid UTF-8 replaced; changed
// reports the replacement.
func normalize(data []byte) (text string, invalidUTF8 bool) {
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

// split finds the frontmatter of text (normalized). As Claude Code reads
// agent files, the opening fence is the file's first line, unindented;
// the closing fence may be longer than three dashes, and the file need
// not end with a newline. A file whose fence comes after blank lines or
// indented is skipped with a warning saying why: Claude Code would not
// read its frontmatter either.
func split(text string) (document, *splitError) {
	lines := strings.Split(text, "\n")
	open := 0
	for open < len(lines) && strings.TrimSpace(lines[open]) == "" {
		open++
	}
	if open == len(lines) || !isFence(lines[open]) {
		return document{}, &splitError{notAgent: true, line: open + 1,
			message: "no frontmatter: an agent file starts with a line ---, then name: and description:, then a line ---, then the agent's instructions"}
	}
	if open > 0 || strings.TrimLeft(lines[open], " \t") != lines[open] || !strings.HasPrefix(lines[open], "---") {
		return document{}, &splitError{notAgent: true, line: open + 1,
			message: "the frontmatter does not begin on the first line (blank lines or indentation come before its ---), so Claude Code would not read it either: " +
				"start the file with the line --- to make it an agent"}
	}
	closing := -1
	for i := open + 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			closing = i
			break
		}
	}
	if closing < 0 {
		return document{}, &splitError{line: open + 1,
			message: "the frontmatter opened here is never closed: add a line --- after its last key, before the agent's instructions"}
	}
	if size := len(strings.Join(lines[open+1:closing], "\n")); size > maxFrontmatter {
		return document{}, &splitError{line: open + 1,
			message: fmt.Sprintf("the frontmatter is %d bytes long; keep it under %d and put the agent's instructions below the closing ---", size, maxFrontmatter)}
	}
	front := dedent(lines[open+1 : closing])
	return document{
		front:     front,
		frontLine: open + 2,
		body:      strings.TrimSpace(strings.Join(lines[closing+1:], "\n")),
	}, nil
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
