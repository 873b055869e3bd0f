// Package deflate compresses the stores' rows: a body is kept deflated
// when that saves at least an eighth of it, and read back within a bound,
// so that a damaged or hostile row never makes a reader allocate more
// than the bound allows.
package deflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// MinBytes is the shortest body worth deflating.
const MinBytes = 128

var writers = sync.Pool{New: func() any {
	w, err := flate.NewWriter(nil, flate.BestSpeed)
	if err != nil {
		panic(err) // BestSpeed is a valid level
	}
	return w
}}

// Append appends to dst the body's length (a uvarint) and the body
// deflated, and reports true, when that takes at most 7/8 of the body;
// else it returns dst unchanged and false.
func Append(dst, body []byte) ([]byte, bool) {
	if len(body) < MinBytes {
		return dst, false
	}
	start := len(dst)
	out := bytes.NewBuffer(dst)
	out.Grow(len(body) * 7 / 8)
	out.Write(binary.AppendUvarint(nil, uint64(len(body))))
	w := writers.Get().(*flate.Writer)
	w.Reset(out)
	_, err := w.Write(body) // a bytes.Buffer does not fail
	if err == nil {
		err = w.Close()
	}
	writers.Put(w)
	if err != nil || out.Len()-start > len(body)*7/8 {
		return dst[:start], false
	}
	return out.Bytes(), true
}

// inflaters are flate readers to reuse, with their sources.
var inflaters sync.Pool

type inflater struct {
	src bytes.Reader
	r   io.ReadCloser
}

// Read returns the body Append deflated into src, which may be at most
// limit bytes.
func Read(src []byte, limit int) ([]byte, error) {
	n, k := binary.Uvarint(src)
	switch {
	case k <= 0:
		return nil, errors.New("the length of its body is not a number")
	case n > uint64(limit):
		return nil, fmt.Errorf("it holds %d bytes, over the store's bound of %d", n, limit)
	}
	return inflate(src[k:], int(n))
}

// inflate returns the n bytes that deflated are, which must end there.
func inflate(deflated []byte, n int) ([]byte, error) {
	f, _ := inflaters.Get().(*inflater)
	if f == nil {
		f = new(inflater)
		f.src.Reset(deflated)
		f.r = flate.NewReader(&f.src)
	} else {
		f.src.Reset(deflated)
		if err := f.r.(flate.Resetter).Reset(&f.src, nil); err != nil {
			return nil, err
		}
	}
	defer inflaters.Put(f)
	// What a damaged row claims is not allocated before it inflates: the
	// body grows from a few times the stream's size.
	body := make([]byte, 0, min(n, 4*len(deflated)+4096))
	for len(body) < n {
		if len(body) == cap(body) {
			body = slices.Grow(body, min(n-len(body), cap(body)))
		}
		m, err := f.r.Read(body[len(body):min(cap(body), n)])
		body = body[:len(body)+m]
		if err == io.EOF && len(body) < n {
			err = io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("its body does not inflate to the %d bytes it claims: %w", n, err)
		}
	}
	var one [1]byte
	if m, err := f.r.Read(one[:]); m > 0 || err != io.EOF {
		return nil, fmt.Errorf("its body inflates to more than the %d bytes it claims", n)
	}
	return body, nil
}
