package progress

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

// columns is how many columns s takes on a terminal; ANSI colour
// sequences take none.
func columns(s string) int {
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

// cut fits s in width columns, ending it with "…" where it is cut. Colour
// sequences are kept whole, and a cut inside a coloured part resets the
// colour after the mark.
func cut(s string, width int) string {
	if width <= 0 || columns(s) <= width {
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
		if n+runeWidth(r) > width-1 {
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

// wrap breaks text (without colour sequences) into lines of at most width
// columns, between words where it can; a word longer than a line is broken
// where the line ends.
func wrap(text string, width int) []string {
	if width <= 0 || columns(text) <= width {
		return []string{text}
	}
	var lines []string
	var line strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		w := columns(word)
		if n > 0 && n+1+w > width {
			lines = append(lines, line.String())
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		for _, r := range word {
			if rw := runeWidth(r); n+rw > width && n > 0 {
				lines = append(lines, line.String())
				line.Reset()
				n = 0
			}
			line.WriteRune(r)
			n += runeWidth(r)
		}
	}
	return append(lines, line.String())
}
