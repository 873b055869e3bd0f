// Package randid makes random ids: version-4 UUIDs drawn from math/rand/v2's
// generator, which the runtime seeds from the operating system's entropy.
// They are unique for every practical purpose — session, evaluation and
// agent ids — and about ten times cheaper than reading crypto/rand for
// each; they are not secrets and must not be used as such.
package randid

import "math/rand/v2"

const hex = "0123456789abcdef"

// New returns a random version-4 UUID in its canonical text form.
func New() string {
	hi, lo := rand.Uint64(), rand.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // variant 10
	var b [36]byte
	put := func(at int, v uint64, n int) {
		for i := n - 1; i >= 0; i-- {
			b[at+i] = hex[v&0xf]
			v >>= 4
		}
	}
	put(0, hi>>32, 8)
	b[8] = '-'
	put(9, hi>>16&0xffff, 4)
	b[13] = '-'
	put(14, hi&0xffff, 4)
	b[18] = '-'
	put(19, lo>>48, 4)
	b[23] = '-'
	put(24, lo&0xffffffffffff, 12)
	return string(b[:])
}
