package cli

import (
	"fmt"
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

// maxShownID is how many characters of an id an error shows.
const maxShownID = 40

// PrintableID is Printable for an id typed on the command line or read
// from a store, cut to its first 40 characters with its size after them
// when it is longer ("xxxx… (5000 bytes)"), so that an error about an id
// no store keeps stays one readable line.
func PrintableID(id string) string {
	if utf8.RuneCountInString(id) <= maxShownID {
		return Printable(id)
	}
	r := []rune(id)
	return fmt.Sprintf("%s… (%d bytes)", Printable(string(r[:maxShownID])), len(id))
}
