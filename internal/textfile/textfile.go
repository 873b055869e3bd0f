// Package textfile says what a text file is for a session's files, so
// that the virtual filesystem, the mount and the bash tool take the same
// files: UTF-8 text of at most MaxChars characters, without a NUL byte in
// its first 8 KiB (a NUL there makes it binary, as git decides).
package textfile

import (
	"bytes"
	"unicode/utf8"
)

// MaxChars is the most characters (Unicode code points) a file may hold.
const MaxChars = 48_000

// MaxBytes is the most bytes a file of MaxChars characters may take in
// UTF-8: a larger file is not text a session can hold, and need not be
// read further.
const MaxBytes = 4 * MaxChars

// binaryProbe is how much of a file is searched for a NUL byte.
const binaryProbe = 8 << 10

// Binary reports whether data holds a NUL byte in its first 8 KiB, as
// binary files do.
func Binary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binaryProbe)], 0) >= 0
}

// Text reports whether data is a text file a session can hold: valid
// UTF-8, not Binary, at most MaxChars characters.
func Text(data []byte) bool {
	return len(data) <= MaxBytes && utf8.Valid(data) && !Binary(data) && utf8.RuneCount(data) <= MaxChars
}
