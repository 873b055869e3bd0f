package cli

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable replaces the control characters of s other than new lines and
// tabs, and any invalid UTF-8, with U+FFFD, so that text a model or a
// downloaded file wrote (an escape sequence, a carriage return) cannot act
// on the terminal it is printed to.
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return utf8.RuneError
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}
