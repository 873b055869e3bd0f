// Package columns measures and fits text in the columns of a terminal:
// how wide a text is (wide characters take two columns, colour sequences
// none), a line cut short to a width, a text wrapped between words.
package columns

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// runeWidth is how many columns of a terminal r takes: two for East Asian
// wide and full-width characters, none for combining marks and other
// zero-width runes, one otherwise.
func runeWidth(r rune) int {
	switch {
	case r == 0x200B || r == 0x200D || unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width is how many columns s takes on a terminal; ANSI colour
// sequences take none.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if esc := escapeLen(s[i:]); esc > 0 {
			i += esc
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeWidth(r)
		i += size
	}
	return n
}

// escapeLen is the length of the ANSI colour sequence s starts with, or 0.
func escapeLen(s string) int {
	if !strings.HasPrefix(s, "\x1b[") {
		return 0
	}
	if end := strings.IndexByte(s, 'm'); end > 0 {
		return end + 1
	}
	return 0
}

// Cut fits s in cols columns, ending it with "…" where it is cut. Colour
// sequences are kept whole, and a cut inside a coloured part resets the
// colour after the mark.
func Cut(s string, cols int) string {
	if cols <= 0 || Width(s) <= cols {
		return s
	}
	var b strings.Builder
	n, coloured := 0, false
	for i := 0; i < len(s); {
		if esc := escapeLen(s[i:]); esc > 0 {
			b.WriteString(s[i : i+esc])
			coloured = s[i:i+esc] != "\x1b[0m"
			i += esc
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if n+runeWidth(r) > cols-1 {
			break
		}
		b.WriteRune(r)
		n += runeWidth(r)
		i += size
	}
	b.WriteString("…")
	if coloured {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// Wrap breaks text (without colour sequences) into lines of at most cols
// columns, between words where it can; a word longer than a line is broken
// where the line ends.
func Wrap(text string, cols int) []string {
	if cols <= 0 || Width(text) <= cols {
		return []string{text}
	}
	var lines []string
	var line strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		w := Width(word)
		if n > 0 && n+1+w > cols {
			lines = append(lines, line.String())
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		for i := 0; i < len(word); {
			r, size := utf8.DecodeRuneInString(word[i:])
			if n+runeWidth(r) > cols && n > 0 {
				lines = append(lines, line.String())
				line.Reset()
				n = 0
			}
			line.WriteString(word[i : i+size]) // the bytes as they are
			n += runeWidth(r)
			i += size
		}
	}
	return append(lines, line.String())
}

// Fill wraps each line of text that is wider than cols, between words;
// the lines it adds are indented two columns more than the line they
// continue. cols 0 leaves text as it is.
func Fill(text string, cols int) string {
	if cols <= 0 {
		return text
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if Width(line) <= cols {
			out = append(out, line)
			continue
		}
		body := strings.Join(strings.Fields(line), " ")
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		first := Wrap(body, cols-len(indent))[0] // a prefix of body
		out = append(out, indent+first)
		if rest := strings.TrimSpace(body[len(first):]); rest != "" {
			for _, l := range Wrap(rest, cols-len(indent)-2) {
				out = append(out, indent+"  "+l)
			}
		}
	}
	return strings.Join(out, "\n")
}
