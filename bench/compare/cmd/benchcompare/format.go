package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fmtNs writes a duration in nanoseconds with three significant digits:
// "812 ns", "62.9 µs", "2.69 ms", "1.20 s".
func fmtNs(ns float64) string {
	units := []struct {
		scale float64
		name  string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if math.Abs(ns) >= u.scale || u.scale == 1 {
			return sig3(ns/u.scale) + " " + u.name
		}
	}
	return ""
}

// fmtBytes writes a byte count: "812 B", "25.9 KB", "2.29 MB" (powers of
// 1024).
func fmtBytes(b float64) string {
	units := []struct {
		scale float64
		name  string
	}{{1 << 30, "GB"}, {1 << 20, "MB"}, {1 << 10, "KB"}, {1, "B"}}
	for _, u := range units {
		if u.scale == 1 {
			return fmtCount(b) + " B"
		}
		if math.Abs(b) >= u.scale {
			return sig3(b/u.scale) + " " + u.name
		}
	}
	return ""
}

// fmtCount writes a count rounded to a whole number with thousands
// separators: "1,237".
func fmtCount(v float64) string {
	n := int64(math.Round(v))
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtRatio writes a/b as "0.27×" (two decimals from 0.1 to 10, whole
// numbers above), "1/1,282×" below 0.1, or "—" when b is not positive.
func fmtRatio(a, b float64) string {
	if b <= 0 {
		return "—"
	}
	r := a / b
	switch {
	case math.Abs(r) >= 10:
		return fmtCount(r) + "×"
	case r > 0 && r < 0.1:
		return "1/" + fmtCount(1/r) + "×"
	}
	return fmt.Sprintf("%.2f×", r)
}

// sig3 writes v with three significant digits, whole numbers from 100 on.
// The digits are chosen after rounding, so 9.996 is "10.0", not "10.00".
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 9.995 && a < 10:
		a = 10
	case a >= 99.95 && a < 100:
		a = 100
	}
	switch {
	case a >= 100:
		return fmtCount(v)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
