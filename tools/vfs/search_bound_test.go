package vfs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// fill gives the harness's session n files in one dispatch: path(i) holds
// content(i).
func (h *harness) fill(n int, path, content func(i int) string) {
	h.t.Helper()
	events := make([]any, n)
	for i := range n {
		events[i] = vfs.FileWritten{Path: path(i), Content: content(i), Version: 1}
	}
	require.NoError(h.t, h.s.Dispatch(context.Background(), events...))
}

// timedCall runs the tool with a context whose deadline is after
// deadline, under a watchdog, and returns its outcome and how long it ran
// past the deadline.
func timedCall(t *testing.T, h *harness, name, args string, deadline time.Duration) (tools.Outcome, time.Duration) {
	t.Helper()
	tool, ok := h.set.Lookup(name)
	require.True(t, ok)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	type result struct {
		out tools.Outcome
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		out := tool.Call(ctx, &tools.Invocation{Session: h.s, Bus: h.s.Bus()}, json.RawMessage(args))
		done <- result{out, time.Now()}
	}()
	select {
	case r := <-done:
		end, _ := ctx.Deadline()
		return r.out, r.at.Sub(end)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %s was still running 30 s after its %v deadline", name, args, deadline)
		return tools.Outcome{}, 0
	}
}

// A deadline stops grep and glob promptly, even inside one long line
// that a costly pattern takes long to match, and even when a glob pattern
// would take exponential time to match naively.
func TestSearchesHonourTheDeadline(t *testing.T) {
	long := strings.Repeat("ab", vfs.MaxContentChars/2)
	for _, tc := range []struct {
		name, tool, args string
		files            int
		path, content    func(i int) string
	}{
		{"grep, a costly pattern over long lines", "grep", `{"pattern": "(.*a){400}z"}`, 40,
			func(i int) string { return fmt.Sprintf("long/%03d.txt", i) }, func(int) string { return long }},
		{"grep, many files", "grep", `{"pattern": "(.*a){100}z"}`, 500,
			func(i int) string { return fmt.Sprintf("many/%04d.txt", i) }, func(int) string { return strings.Repeat("ab", 2000) + "\n" }},
		{"glob, many ** over deep paths", "glob", `{"pattern": "` + strings.Repeat("**/a/", 15) + `**/b"}`, 20_000,
			func(i int) string { return strings.Repeat("a/", 15) + fmt.Sprintf("a%05d", i) }, func(int) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.fill(tc.files, tc.path, tc.content)
			out, late := timedCall(t, h, tc.tool, tc.args, 200*time.Millisecond)
			t.Logf("returned %v after the deadline: %.120s", late, out.Text)
			if late > 0 {
				assert.False(t, out.Success)
				assert.Contains(t, out.Text, "context deadline exceeded")
			}
			// Promptly, not at once: the searches check the deadline as they
			// go (usually within a few milliseconds); the bound leaves room
			// for a loaded machine, and is still far below what the work
			// would take if the deadline were not checked.
			assert.Less(t, late, 2*time.Second, "time past the deadline")
		})
	}
}

// Patterns are capped in size, and a regexp in how large it compiles, so
// that compiling and matching it stay cheap; the refusal says what to do.
func TestSearchPatternCaps(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.txt": "alpha\n"})
	for _, tc := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"a grep pattern over 1,000 characters", "grep", vfs.GrepParams{Pattern: strings.Repeat("a", 1001)},
			"Tool validation failed: grep: pattern: must be at most 1000 characters"},
		{"a glob over 1,000 characters", "glob", vfs.GlobParams{Pattern: strings.Repeat("*a", 501)},
			"Tool validation failed: glob: pattern: must be at most 1000 characters"},
		{"grep's glob over 1,000 characters", "grep", vfs.GrepParams{Pattern: "a", Glob: strings.Repeat("?", 1001)},
			"Tool validation failed: grep: glob: must be at most 1000 characters"},
		{"a regexp that compiles too large", "grep", vfs.GrepParams{Pattern: strings.Repeat("(.*a){1000}", 80)},
			"the pattern is too complex"},
		{"several large repeats", "grep", vfs.GrepParams{Pattern: "[a-z]{1000}[0-9]{1000}[A-Z]{1000}[a-f]{1000}[g-k]{1000}"},
			"use smaller {n,m} counts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text string
			allocated := allocatedBytes(func() { text = fail(h, tc.tool, jsonArgs(t, tc.args)) })
			assert.Contains(t, text, tc.want)
			assert.Less(t, allocated, uint64(4<<20), "bytes allocated by the refused call")
		})
	}
	got := ok[vfs.GrepResult](h, "grep", jsonArgs(t, vfs.GrepParams{Pattern: "(alpha|beta|gamma|delta){1,3}"}))
	assert.Len(t, got.Matches, 1, "an ordinary pattern is fine")
}

// Without a deadline, a search stops at its work limit: the result keeps
// what was found, says it stopped early and what to narrow.
func TestSearchWorkLimit(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("ab", vfs.MaxContentChars/2)
	h.fill(200, func(i int) string { return fmt.Sprintf("long/%03d.txt", i) }, func(int) string { return long })
	h.write(map[string]string{"a.txt": "zzz" + strings.Repeat("a", 400)})
	// The literal prefix makes the search fast, but the limit counts the
	// work it could take.
	out := h.call("grep", `{"pattern": "zzz(.*a){400}"}`)
	require.True(t, out.Success, out.Text)
	got := out.Value.(vfs.GrepResult)
	assert.True(t, got.Truncated)
	assert.Equal(t, []vfs.GrepMatch{{Path: "a.txt", LineNumber: 1, Line: "zzz" + strings.Repeat("a", 400)}}, got.Matches)
	assert.Regexp(t, `^1 matching line; the search stopped after [1-9] files at its work limit: narrow the path or the glob, or simplify the pattern`, out.Text)

	many := newHarness(t)
	many.fill(100_001, func(i int) string { return fmt.Sprintf("d%02d/f%06d", i/5000, i) }, func(int) string { return "" })
	g := many.call("glob", `{"pattern": "**/nothing"}`)
	require.True(t, g.Success, g.Text)
	assert.True(t, g.Value.(vfs.GlobResult).Truncated)
	assert.Equal(t, "0 files match; the search stopped after 100000 files at its work limit: narrow the path or the pattern", strings.SplitN(g.Text, "\n", 2)[0])
}

// A matching line longer than 1,000 characters comes back clipped, so 500
// matches cannot carry 100 MB.
func TestGrepClipsLongLines(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"wide.txt": "short needle\n" + strings.Repeat("é", 5000) + " needle\n"})
	got := ok[vfs.GrepResult](h, "grep", `{"pattern": "needle"}`)
	require.Len(t, got.Matches, 2)
	assert.Equal(t, "short needle", got.Matches[0].Line)
	assert.Equal(t, strings.Repeat("é", 1000)+"…", got.Matches[1].Line)
}

// BenchmarkGlobDoubleStars matches a pattern of sixteen "**" against
// 1,000 paths of sixteen segments that it does not match: the cost per
// path is at most one segment match per pattern segment and path segment.
func BenchmarkGlobDoubleStars(b *testing.B) {
	h := newHarness(b)
	h.fill(1000, func(i int) string { return strings.Repeat("a/", 15) + fmt.Sprintf("a%05d", i) }, func(int) string { return "" })
	args := `{"pattern": "` + strings.Repeat("**/a/", 15) + `**/b"}`
	b.ReportAllocs()
	for b.Loop() {
		out := h.call("glob", args)
		if !out.Success {
			b.Fatal(out.Text)
		}
	}
}

// A costly pattern on a long line is matched through the reader that can
// stop; it finds the same lines as on short ones.
func TestGrepLongLinesMatchTheSame(t *testing.T) {
	h := newHarness(t)
	filler := strings.Repeat("ab ", 12_000)
	h.write(map[string]string{
		"long.txt":  filler + "xyzxyz needle\n" + "needles\n" + filler[:5000] + "\n",
		"short.txt": "xyzxyz needle\nneedles\n\n",
	})
	got := ok[vfs.GrepResult](h, "grep", `{"pattern": "(x|y|z){6} needle\\b|\\bneedles$"}`)
	var lines []string
	for _, m := range got.Matches {
		lines = append(lines, fmt.Sprintf("%s:%d", m.Path, m.LineNumber))
	}
	assert.Equal(t, []string{"long.txt:1", "long.txt:2", "short.txt:1", "short.txt:2"}, lines)
	none := ok[vfs.GrepResult](h, "grep", `{"pattern": "(x|y|z){6} needle\\b[a-z]"}`)
	assert.Empty(t, none.Matches)
}
