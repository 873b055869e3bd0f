package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Bounds on the work of one glob or grep call. The file table can be large
// and a regexp costly, so a search is bounded before and while it runs:
// its pattern by size, its work by a budget, and its time by the call's
// context, which it checks as it goes.
const (
	// maxPatternChars is the longest a regexp or a glob pattern may be.
	maxPatternChars = 1000
	// maxRegexpSize bounds how large a regexp may compile (about one unit
	// per instruction, see regexpSize): compiling and matching cost that
	// much per byte of text.
	maxRegexpSize = 5000
	// maxSearchFiles is the most files one search examines.
	maxSearchFiles = 100_000
	// maxSearchWork bounds the work of one search, in units of one byte of
	// text matched against one unit of the regexp (at least
	// minWorkPerByte per byte), or one character of a path against one of
	// a glob: about a second at worst, and 64 MiB of text for a simple
	// pattern.
	maxSearchWork  = 1 << 29
	minWorkPerByte = 8
	// interruptAbove is the work above which one match call checks the
	// context as it reads its text, instead of running to its end.
	interruptAbove = 1 << 19
	// checkEvery is the work between two looks at the context.
	checkEvery = 1 << 16
	// maxLineChars is the most characters of a line grep returns.
	maxLineChars = 1000
)

// errWorkLimit stops a search that reached maxSearchFiles or
// maxSearchWork.
var errWorkLimit = errors.New("work limit reached")

// budget meters one search: the files it examined and the work it did, and
// whether its context is done.
type budget struct {
	ctx   context.Context
	done  <-chan struct{}
	files int
	work  int64
	since int64 // work since the last look at ctx
}

func newBudget(ctx context.Context) *budget {
	return &budget{ctx: ctx, done: ctx.Done()}
}

// file accounts for one more file examined. It fails with errWorkLimit
// past maxSearchFiles, and with the context's error once it is done.
func (b *budget) file() error {
	if b.files == maxSearchFiles {
		return errWorkLimit
	}
	b.files++
	return b.check()
}

// spend accounts for work units about to be done; it fails, without
// accounting for them, when they would exceed maxSearchWork, and with the
// context's error once it is done.
func (b *budget) spend(units int64) error {
	if b.work+units > maxSearchWork {
		return errWorkLimit
	}
	b.work += units
	b.since += units
	if b.since < checkEvery {
		return nil
	}
	b.since = 0
	return b.check()
}

// check returns the context's error once it is done.
func (b *budget) check() error {
	select {
	case <-b.done:
		return b.ctx.Err()
	default:
		return nil
	}
}

// globCost is the work of matching the glob pattern against the relative
// path rel: at most every character of the pattern against every
// character of the path.
func globCost(pattern, rel string) int64 {
	return max(int64(len(pattern))*int64(len(rel)), minWorkPerByte)
}

// matcher is a compiled grep pattern with its estimated size.
type matcher struct {
	re   *regexp.Regexp
	size int64 // work units per byte of text
}

// compileRegexp checks how large pattern (at most maxPatternChars
// characters, which grep's parameters enforce) would compile, then
// compiles it. A failure is worded for the model.
func compileRegexp(pattern string) (*matcher, error) {
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a valid regular expression: %s", regexpError(err))
	}
	size := regexpSize(parsed, maxRegexpSize)
	if size > maxRegexpSize {
		return nil, fmt.Errorf("the pattern is too complex: it would compile to more than %d steps; use smaller {n,m} counts, fewer nested repeats or fewer alternatives", maxRegexpSize)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a valid regular expression: %s", regexpError(err))
	}
	return &matcher{re: re, size: max(int64(size), minWorkPerByte)}, nil
}

// regexpSize estimates the number of instructions re compiles to, from
// the parsed form (before repeats are expanded, so estimating costs
// little). It stops counting past limit.
func regexpSize(re *syntax.Regexp, limit int) int {
	sum := func(subs []*syntax.Regexp) int {
		n := 0
		for _, s := range subs {
			n += regexpSize(s, limit)
			if n > limit {
				return limit + 1
			}
		}
		return n
	}
	var n int
	switch re.Op {
	case syntax.OpLiteral:
		n = len(re.Rune)
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		n = 2 + sum(re.Sub)
	case syntax.OpRepeat:
		times := re.Max
		if times < 0 {
			times = re.Min + 1
		}
		n = max(times, 1) * (1 + sum(re.Sub))
	case syntax.OpConcat:
		n = sum(re.Sub)
	case syntax.OpAlternate:
		n = len(re.Sub) + sum(re.Sub)
	default: // one instruction: a class, an anchor, an empty match
		n = 1
	}
	return min(n, limit+1)
}

// match reports whether the matcher matches text, spending the work it
// may take. A match that may take long reads text through a reader that
// stops once the context is done, so that even one long line cannot keep
// the search past its deadline.
func (m *matcher) match(b *budget, text string) (bool, error) {
	units := m.size * int64(len(text))
	if err := b.spend(units); err != nil {
		return false, err
	}
	if units <= interruptAbove {
		return m.re.MatchString(text), nil
	}
	r := &stoppingReader{text: text, done: b.done, every: max(1, checkEvery/int(m.size))}
	matched := m.re.MatchReader(r)
	if r.stopped {
		return false, b.ctx.Err()
	}
	return matched, nil
}

// stoppingReader reads a string rune by rune and reports its end early
// once done is closed, looking every so many runes.
type stoppingReader struct {
	text    string
	pos     int
	done    <-chan struct{}
	every   int
	count   int
	stopped bool
}

func (r *stoppingReader) ReadRune() (rune, int, error) {
	if r.pos >= len(r.text) || r.stopped {
		return 0, 0, io.EOF
	}
	if r.count++; r.count >= r.every {
		r.count = 0
		select {
		case <-r.done:
			r.stopped = true
			return 0, 0, io.EOF
		default:
		}
	}
	c, size := rune(r.text[r.pos]), 1
	if c >= utf8.RuneSelf {
		c, size = utf8.DecodeRuneInString(r.text[r.pos:])
	}
	r.pos += size
	return c, size, nil
}
