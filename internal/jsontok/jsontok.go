// Package jsontok reads JSON text one token at a time and says where each
// token lies in the input, for code that needs more than encoding/json's
// values: the order of an object's keys, a key given twice, the line of a
// value, the path of a value an error is about.
//
// A Reader returns the tokens encoding/json's Decoder.Token returns for the
// first JSON value of its input (with UseNumber: numbers as their text),
// plus the byte offsets of each, and it accepts and refuses exactly the
// inputs Decoder.Token does. Unlike Decoder.Token it allocates nothing on
// valid input (but for the value of a string with escapes, when asked for,
// and arrays and objects nested more than 128 deep), tells an object's
// keys from string values, and stops after the first value: what follows
// it is white space (io.EOF) or ErrTrailing.
//
// On malformed input the error is the one Decoder.Token gives for the same
// input — a *json.SyntaxError, io.EOF or io.ErrUnexpectedEOF, with its
// wording and offset — worked out again by a Decoder on that slow path,
// so that every message reads as encoding/json's.
package jsontok

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Kind is the kind of a Token.
type Kind uint8

// The kinds of tokens. A Key is a string in the place of an object's key;
// every other string is a String.
const (
	Invalid     Kind = iota // no token: the zero Token
	ObjectStart             // {
	ObjectEnd               // }
	ArrayStart              // [
	ArrayEnd                // ]
	Key                     // a string naming an object member
	String                  // a string value
	Number                  // a number
	True                    // true
	False                   // false
	Null                    // null
)

var kindNames = [...]string{"invalid", "{", "}", "[", "]", "key", "string", "number", "true", "false", "null"}

// String names the kind: its delimiter, or a word.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Token is one token of the input: its kind and the bytes it spans,
// input[Start:End]. A Key or String spans its quotes.
type Token struct {
	// Kind is what the token is.
	Kind Kind
	// Start is the offset of the token's first byte in the input.
	Start int
	// End is the offset just after its last byte: what
	// Decoder.InputOffset reports after Decoder.Token returned it.
	End int
	// Escaped reports whether a Key or String holds a backslash escape.
	Escaped bool
}

// ErrTrailing is the error of Next when something other than white space
// follows the first JSON value of the input. Offset then says where.
var ErrTrailing = errors.New("jsontok: data after the JSON value")

// parse states, as Decoder.Token names them.
type state uint8

const (
	stTop         state = iota // the value of the input is next
	stDone                     // that value has been read
	stArrayStart               // after '['
	stArrayValue               // after ',' in an array
	stArrayComma               // after an element
	stObjectStart              // after '{'
	stObjectKey                // after ',' in an object
	stObjectColon              // after a key
	stObjectValue              // after ':'
	stObjectComma              // after a member's value
)

// Reader reads the tokens of one JSON value. The zero Reader reads an empty
// input; Reset gives it another.
type Reader struct {
	data  []byte
	pos   int
	state state
	depth int       // open arrays and objects
	small [2]uint64 // which of the first 128 open levels are arrays (bit set)
	deep  []uint64  // the same beyond 128 levels
	count int       // tokens returned
	err   error     // sticky
}

// NewReader returns a Reader of data.
func NewReader(data []byte) *Reader {
	r := new(Reader)
	r.Reset(data)
	return r
}

// Reset makes r read data from its start.
func (r *Reader) Reset(data []byte) {
	deep := r.deep[:0]
	*r = Reader{data: data, deep: deep}
}

// Offset returns the offset of r in its input: just after the last token
// returned, or, after ErrTrailing, the first byte of what follows the value.
func (r *Reader) Offset() int { return r.pos }

// Depth returns how many arrays and objects are open.
func (r *Reader) Depth() int { return r.depth }

// Bytes returns the input bytes of t.
func (r *Reader) Bytes(t Token) []byte { return r.data[t.Start:t.End] }

// Unquote returns the value of a Key or String token as encoding/json
// decodes it (escapes resolved, bytes that are not UTF-8 replaced by
// U+FFFD). It allocates only the string.
func (r *Reader) Unquote(t Token) string {
	raw := r.data[t.Start:t.End]
	if inner := raw[1 : len(raw)-1]; !t.Escaped && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "" // not a token of this reader
	}
	return s
}

// Next returns the next token. After the last token of the value it
// returns io.EOF when only white space follows, else ErrTrailing; on
// malformed input, Decoder.Token's error (see the package documentation).
// An error is returned again by every later call.
func (r *Reader) Next() (Token, error) {
	if r.err != nil {
		return Token{}, r.err
	}
	for {
		r.skipSpace()
		if r.pos >= len(r.data) {
			if r.state == stDone {
				return Token{}, io.EOF
			}
			return r.fail()
		}
		if r.state == stDone {
			r.err = ErrTrailing
			return Token{}, r.err
		}
		switch c := r.data[r.pos]; c {
		case '[', '{':
			if !r.valueAllowed() {
				return r.fail()
			}
			r.push(c == '[')
			if c == '[' {
				r.state = stArrayStart
				return r.token(ArrayStart, r.pos+1, false), nil
			}
			r.state = stObjectStart
			return r.token(ObjectStart, r.pos+1, false), nil
		case ']':
			if r.state != stArrayStart && r.state != stArrayComma {
				return r.fail()
			}
			r.pop()
			return r.token(ArrayEnd, r.pos+1, false), nil
		case '}':
			if r.state != stObjectStart && r.state != stObjectComma {
				return r.fail()
			}
			r.pop()
			return r.token(ObjectEnd, r.pos+1, false), nil
		case ':':
			if r.state != stObjectColon {
				return r.fail()
			}
			r.pos++
			r.state = stObjectValue
		case ',':
			switch r.state {
			case stArrayComma:
				r.state = stArrayValue
			case stObjectComma:
				r.state = stObjectKey
			default:
				return r.fail()
			}
			r.pos++
		case '"':
			end, escaped, ok := scanString(r.data, r.pos)
			if !ok {
				return r.fail()
			}
			switch r.state {
			case stObjectStart, stObjectKey:
				r.state = stObjectColon
				return r.token(Key, end, escaped), nil
			}
			if !r.valueAllowed() {
				return r.fail()
			}
			r.valueEnd()
			return r.token(String, end, escaped), nil
		default:
			if !r.valueAllowed() {
				return r.fail()
			}
			kind, end, ok := scanScalar(r.data, r.pos)
			if !ok {
				return r.fail()
			}
			r.valueEnd()
			return r.token(kind, end, false), nil
		}
	}
}

// More reports whether another element or member follows in the array or
// object being read, as Decoder.More does: true unless the next byte after
// white space is ']' or '}', or there is none. It reads no token.
func (r *Reader) More() bool {
	if r.err != nil {
		return false
	}
	for i := r.pos; i < len(r.data); i++ {
		switch r.data[i] {
		case ' ', '\t', '\r', '\n':
		case ']', '}':
			return false
		default:
			return true
		}
	}
	return false
}

// Skip moves past the rest of the value whose first token t was just
// returned by Next, and returns the offset just after the value's last
// byte: t.End for a scalar, the end of the matching '}' or ']' for an
// object or array.
func (r *Reader) Skip(t Token) (int, error) {
	if t.Kind != ObjectStart && t.Kind != ArrayStart {
		return t.End, nil
	}
	for depth := r.depth - 1; r.depth > depth; {
		if _, err := r.Next(); err != nil {
			return 0, err
		}
	}
	return r.pos, nil
}

// token returns a token of kind from r.pos to end, and moves past it.
func (r *Reader) token(kind Kind, end int, escaped bool) Token {
	t := Token{Kind: kind, Start: r.pos, End: end, Escaped: escaped}
	r.pos = end
	r.count++
	return t
}

func (r *Reader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\r', '\n':
			r.pos++
		default:
			return
		}
	}
}

func (r *Reader) valueAllowed() bool {
	switch r.state {
	case stTop, stArrayStart, stArrayValue, stObjectValue:
		return true
	}
	return false
}

// valueEnd moves the state past a value that has been read.
func (r *Reader) valueEnd() {
	switch r.state {
	case stTop:
		r.state = stDone
	case stArrayStart, stArrayValue:
		r.state = stArrayComma
	case stObjectValue:
		r.state = stObjectComma
	}
}

// push opens an array (or an object) one level deeper.
func (r *Reader) push(array bool) {
	i := r.depth
	r.depth++
	words := r.small[:]
	if i >= 128 {
		i -= 128
		if i/64 >= len(r.deep) {
			r.deep = append(r.deep, 0)
		}
		words = r.deep
	}
	if array {
		words[i/64] |= 1 << (i % 64)
	} else {
		words[i/64] &^= 1 << (i % 64)
	}
}

// pop closes the innermost array or object and moves past it as a value.
func (r *Reader) pop() {
	r.depth--
	if r.depth == 0 {
		r.state = stDone
		return
	}
	i, words := r.depth-1, r.small[:]
	if i >= 128 {
		i, words = i-128, r.deep
	}
	if words[i/64]&(1<<(i%64)) != 0 {
		r.state = stArrayComma
	} else {
		r.state = stObjectComma
	}
}

// fail records and returns the error of malformed input: the one
// Decoder.Token returns at the same token, which it reaches by reading the
// input again from its start.
func (r *Reader) fail() (Token, error) {
	dec := json.NewDecoder(bytes.NewReader(r.data))
	dec.UseNumber()
	for range r.count {
		if _, err := dec.Token(); err != nil {
			r.err = err
			return Token{}, err
		}
	}
	_, err := dec.Token()
	if err == nil {
		// Unreachable while the reader accepts what Decoder.Token
		// accepts, which the tests check.
		err = fmt.Errorf("jsontok: invalid JSON at byte %d", r.pos)
	}
	r.err = err
	return Token{}, err
}

// scanString reads the string whose opening quote is at data[i]. It
// returns the offset after its closing quote and whether it holds escapes;
// ok is false when no valid string starts there.
func scanString(data []byte, i int) (end int, escaped, ok bool) {
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return j + 1, escaped, true
		case c == '\\':
			escaped = true
			if j+1 >= len(data) {
				return 0, false, false
			}
			j++
			switch data[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(data) {
					return 0, false, false
				}
				for _, h := range data[j+1 : j+5] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				j += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanScalar reads the number or literal at data[i]. It returns its kind
// and the offset just after it; ok is false when none starts there.
func scanScalar(data []byte, i int) (kind Kind, end int, ok bool) {
	switch data[i] {
	case 't':
		return literal(data, i, "true", True)
	case 'f':
		return literal(data, i, "false", False)
	case 'n':
		return literal(data, i, "null", Null)
	}
	end, ok = scanNumber(data, i)
	return Number, end, ok
}

func literal(data []byte, i int, word string, kind Kind) (Kind, int, bool) {
	if !bytes.HasPrefix(data[i:], []byte(word)) {
		return Invalid, 0, false
	}
	return kind, i + len(word), true
}

// scanNumber reads the number at data[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
// It ends before the first byte that cannot continue it.
func scanNumber(data []byte, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(data) && isDigit(data[i]) {
			i++
		}
		return i > start
	}
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}
