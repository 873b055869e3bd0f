package pvec

import (
	"fmt"
	"testing"

	"github.com/benbjohnson/immutable"
)

// The benchmarks compare this vector with benbjohnson/immutable's List, the
// well-kept alternative, on the session's hot operation: appending one item
// to a large slice, then reading it back.

var sizes = []int{10, 1_000, 100_000, 1_000_000}

func BenchmarkAppend(b *testing.B) {
	for _, n := range sizes {
		var v Vector
		for i := range n {
			v = v.Append(i)
		}
		b.Run(fmt.Sprintf("pvec/N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			w := v
			for i := 0; b.Loop(); i++ {
				w = w.Append(i)
			}
		})
		l := immutable.NewList[any]()
		for i := range n {
			l = l.Append(i)
		}
		b.Run(fmt.Sprintf("immutable.List/N=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			w := l
			for i := 0; b.Loop(); i++ {
				w = w.Append(i)
			}
		})
	}
}

// BenchmarkAppendFromSharedBase appends to the same old version every time,
// as a freshly forked child does: the tail must be copied.
func BenchmarkAppendFromSharedBase(b *testing.B) {
	n := 1_000_000
	var v Vector
	for i := range n + 7 {
		v = v.Append(i)
	}
	b.Run("pvec", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = v.Append(i)
		}
	})
	l := immutable.NewList[any]()
	for i := range n + 7 {
		l = l.Append(i)
	}
	b.Run("immutable.List", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			_ = l.Append(i)
		}
	})
}

func BenchmarkAt(b *testing.B) {
	n := 100_000
	var v Vector
	l := immutable.NewList[any]()
	for i := range n {
		v = v.Append(i)
		l = l.Append(i)
	}
	b.Run("pvec", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			_ = v.At(i % n)
		}
	})
	b.Run("immutable.List", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			_ = l.Get(i % n)
		}
	})
}
