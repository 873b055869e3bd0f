package shell

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Bounds on what the model reads of a command's output.
const (
	// maxOutputChars is the most characters of output the model reads:
	// the first and the last half of it, the middle left out.
	maxOutputChars = 30_000
	// headBytes is how much of the start of the output is kept: enough
	// for maxOutputChars characters of up to four bytes.
	headBytes = 4 * maxOutputChars
	// tailBytes is how much of the end is kept once the start is full:
	// enough for half of maxOutputChars.
	tailBytes = 4 * maxOutputChars / 2
)

// output keeps the start and the end of a command's output in bounded
// memory, however much the command prints: the first headBytes bytes, and
// the last tailBytes bytes after them in a ring.
type output struct {
	head  []byte
	tail  []byte // a ring of tailBytes once written to
	next  int    // where the ring's next byte goes
	full  bool   // the ring has wrapped
	total int64  // bytes written
	chars int64  // characters written: bytes that start one
}

// Write keeps what p adds to the start or the end; it never fails.
func (o *output) Write(p []byte) (int, error) {
	n := len(p)
	o.total += int64(n)
	for _, b := range p {
		if !utf8.RuneStart(b) {
			continue
		}
		o.chars++
	}
	if room := headBytes - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if o.tail == nil {
		o.tail = make([]byte, tailBytes)
	}
	if len(p) >= tailBytes {
		copy(o.tail, p[len(p)-tailBytes:])
		o.next, o.full = 0, true
		return n, nil
	}
	k := copy(o.tail[o.next:], p)
	if k < len(p) {
		copy(o.tail, p[k:])
		o.full = true
	}
	o.next = (o.next + len(p)) % tailBytes
	if o.next == 0 {
		o.full = true
	}
	return n, nil
}

// readFrom copies r into o until r ends or fails; a read on a closed
// file (the output closed after the command) is its end.
func (o *output) readFrom(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		_, _ = o.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// String returns the output as the model reads it: valid UTF-8, whole
// when it has at most maxOutputChars characters, else its first and last
// maxOutputChars/2 characters around a line that says how many were left
// out.
func (o *output) String() string {
	if o.tail == nil {
		s := strings.ToValidUTF8(string(o.head), "\uFFFD")
		if utf8.RuneCountInString(s) <= maxOutputChars {
			return s
		}
		start, end := firstChars(s, maxOutputChars/2), lastChars(s, maxOutputChars/2)
		left := utf8.RuneCountInString(s) - utf8.RuneCountInString(start) - utf8.RuneCountInString(end)
		return joinElided(start, end, int64(left))
	}
	tail := o.tail[:o.next]
	if o.full {
		tail = append(append(make([]byte, 0, tailBytes), o.tail[o.next:]...), o.tail[:o.next]...)
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:] // the ring began inside a character
	}
	start := firstChars(strings.ToValidUTF8(string(o.head), "\uFFFD"), maxOutputChars/2)
	end := lastChars(strings.ToValidUTF8(string(tail), "\uFFFD"), maxOutputChars/2)
	left := o.chars - int64(utf8.RuneCountInString(start)) - int64(utf8.RuneCountInString(end))
	return joinElided(start, end, max(left, 0))
}

// joinElided joins the start and the end of an output around the line
// that says how much was left out between them.
func joinElided(start, end string, left int64) string {
	return fmt.Sprintf("%s\n[… %d characters of output left out …]\n%s", start, left, end)
}

// firstChars returns the first n characters of s.
func firstChars(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// lastChars returns the last n characters of s.
func lastChars(s string, n int) string {
	end := len(s)
	for i := 0; i < n && end > 0; i++ {
		_, size := utf8.DecodeLastRuneInString(s[:end])
		end -= size
	}
	return s[end:]
}
