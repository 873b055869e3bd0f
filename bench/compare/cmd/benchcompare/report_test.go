package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bench/compare"
)

// fakeResults gives every case a figure: eino's loop costs 10 µs a turn
// (12 µs streaming), offshoot's 2 µs (2.4 µs streaming); the hand-off costs
// eino 100 ns per event, offshoot a flat 8 µs and offshoot-task a flat 9
// µs; offshoot's children 9 KB each, offshoot-task's 10 KB, eino's 2 MB.
func fakeResults() results {
	s := samples{}
	perTurn := map[string]float64{compare.Offshoot: 2_000, compare.OffshootStream: 2_400, compare.Eino: 10_000, compare.EinoStream: 12_000,
		compare.Genkit: 700_000, compare.LangChainGo: 70_000}
	for _, c := range compare.Cases() {
		var f figure
		switch c.Workload {
		case compare.Loop:
			f = figure{Ns: 20_000 + perTurn[c.Framework]*float64(c.Size), Bytes: 1000 * float64(c.Size), Allocs: 30 * float64(c.Size)}
		case compare.Handoff:
			f = figure{Ns: 20_000, Bytes: 10_000, Allocs: 100}
			if c.Variant == compare.WithHandoff {
				switch c.Framework {
				case compare.Offshoot:
					f.Ns, f.Bytes, f.Allocs = f.Ns+8_000, f.Bytes+14_336, f.Allocs+150
				case compare.OffshootTask:
					f.Ns, f.Bytes, f.Allocs = f.Ns+9_000, f.Bytes+15_360, f.Allocs+160
				default:
					f.Ns, f.Bytes, f.Allocs = f.Ns+100*float64(c.Size), f.Bytes+400*float64(c.Size), f.Allocs+2*float64(c.Size)
				}
			}
		case compare.Scale:
			kb := map[string]float64{compare.Offshoot: 9, compare.OffshootTask: 10, compare.Eino: 2048, compare.Genkit: 12_000}[c.Framework]
			f = figure{Ns: 1e8, Extra: map[string]float64{scaleMetricPerChild: kb}}
		}
		// Three runs around the figure: the median is the figure.
		for _, scale := range []float64{0.5, 1, 3} {
			g := f
			g.Ns *= scale
			s.add(c, g)
		}
	}
	return s.medians()
}

func TestDerivedFigures(t *testing.T) {
	r := fakeResults()
	turn, ok := r.perTurn(compare.Eino)
	require.True(t, ok)
	assert.InDelta(t, 10_000, turn.Ns, 1e-6)
	assert.InDelta(t, 30, turn.Allocs, 1e-6)
	g, ok := r.growth(compare.Offshoot)
	require.True(t, ok)
	assert.InDelta(t, 1, g, 1e-9)
	cost, ok := r.handoffCost(compare.Eino, 10_000)
	require.True(t, ok)
	assert.InDelta(t, 1e6, cost.Ns, 1e-6)
	_, children, ok := r.scale(compare.Genkit)
	require.True(t, ok)
	assert.Equal(t, 10, children)
	_, ok = results{}.perTurn(compare.Eino)
	assert.False(t, ok)
}

func TestReportSaysWhatWasMeasuredAndAgainstWhichTarget(t *testing.T) {
	var buf bytes.Buffer
	m := machine{CPU: "Test CPU", Cores: 2, Memory: "24 GiB", OS: "linux/amd64", Go: "go1.26.8", Procs: 2, Date: "2026-11-23",
		Versions: []string{"github.com/cloudwego/eino v0.7.36"}, Commit: "abc1234"}
	(&report{w: &buf, r: fakeResults(), m: m, cfg: config{count: 3, benchtime: "1s"}}).write()
	out := buf.String()
	for _, want := range []string{
		"**Machine:** Test CPU, 2 cores, 24 GiB, linux/amd64, go1.26.8, GOMAXPROCS=2. **Date:** 2026-11-23. Medians of 3 runs",
		"offshoot at commit abc1234; github.com/cloudwego/eino v0.7.36",
		"| offshoot | 22.0 µs | 40.0 µs | 120 µs | 2.00 µs | 1,000 B | 30 | 0.20× | 1.00 |",
		"| offshoot-stream | 22.4 µs | 44.0 µs | 140 µs | 2.40 µs | 1,000 B | 30 | 0.20× | 1.00 |",
		"| eino-stream | 32.0 µs | 140 µs | 620 µs | 12.0 µs | 1,000 B | 30 | 1.00× | 1.00 |",
		"| genkit | 720 µs | 7.02 ms | 35.0 ms | 700 µs | 1,000 B | 30 | 70× | 1.00 |",
		"streaming on, ≤ 0.25× eino per turn: offshoot-stream is at **0.20×** eino-stream (2.40 µs against 12.0 µs) — met (0.24× eino without streaming); ≤ 25 allocations per turn: **30.0** — missed by 20%.",
		"Without streaming, offshoot is at **0.20×** eino (2.00 µs against 10.0 µs) — met; 30.0 allocations per turn — missed by 20%.",
		"| offshoot | with the hand-off | 28.0 µs |", "| offshoot-task | parent only | 20.0 µs |",
		"8.00 µs, 14.0 KB, 150 allocs (0.80×)", "(1/125×)", "| eino | 1.00 µs, 3.91 KB, 20 allocs |",
		"| offshoot-task | 9.00 µs, 15.0 KB, 160 allocs (9.00×) | 9.00 µs, 15.0 KB, 160 allocs (0.90×) |",
		"**Targets** for offshoot (`dispatch_subagent`): flat in N to 100,000 — the hand-off at N = 100,000 is 1.00× the one at N = 10 in time (≤ 1.5×: met), 1.00× in allocations; " +
			"the whole round trip ≤ 10.0 µs: **8.00 µs** (the median over these N; from 8.00 µs to 8.00 µs) — met",
		"**Targets** for offshoot-task (the Task tool with fork-context): flat in N to 100,000 — the hand-off at N = 100,000 is 1.00× the one at N = 10 in time (≤ 1.5×: met), 1.00× in allocations; " +
			"the whole round trip ≤ 10.0 µs: **9.00 µs** (the median over these N; from 9.00 µs to 9.00 µs) — met",
		"| eino | 100 | 2.00 MB | 1.95 GB (scaled) | 1.00× |", "| offshoot | 1,000 | 9.00 KB | 8.79 MB | 1/228× |",
		"| offshoot-task | 1,000 | 10.0 KB | 9.77 MB | 1/205× |",
		"offshoot adds **8.8 MB** — met; offshoot-task adds **9.8 MB** — met",
		"bench-loop.svg", "bench-handoff.svg",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "| — |", "every cell filled")
}

// A hand-off the control outran is noise, not a negative cost.
func TestNegativeHandoffIsNoise(t *testing.T) {
	r := fakeResults()
	k := key(compare.Handoff, compare.Case{Workload: compare.Handoff, Framework: compare.Genkit, Variant: compare.ParentOnly, Size: 10}.Name())
	f := r[k]
	f.Ns = 1e6
	r[k] = f
	var buf bytes.Buffer
	(&report{w: &buf, r: r, cfg: config{count: 1, benchtime: "1s"}}).write()
	assert.Contains(t, buf.String(), "| genkit | within noise (-979 µs), 3.91 KB, 20 allocs |")
}

func TestChartsAreWritten(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, writeCharts(fakeResults(), dir))
	charts := map[string][]string{
		"bench-loop.svg":    {compare.Offshoot, compare.OffshootStream, compare.Eino, compare.EinoStream, compare.Genkit, compare.LangChainGo},
		"bench-handoff.svg": {compare.Offshoot, compare.OffshootTask, compare.Eino, compare.Genkit},
	}
	for _, fw := range append(slices.Clone(loopFrameworks), handoffFrameworks...) {
		assert.NotNil(t, colors[fw], "a color for %s", fw)
	}
	for name, frameworks := range charts {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(data), "<?xml"), name)
		for _, fw := range frameworks {
			assert.Contains(t, string(data), fw, name)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{fmtNs(812), "812 ns"}, {fmtNs(62_886), "62.9 µs"}, {fmtNs(2_694_131), "2.69 ms"}, {fmtNs(1.2e9), "1.20 s"},
		{fmtNs(-3_500), "-3.50 µs"}, {fmtNs(9_996), "10.0 µs"}, {fmtNs(99_960), "100 µs"}, {fmtBytes(9.996 * 1024), "10.0 KB"}, {sig3(9.994), "9.99"}, {fmtBytes(25_887), "25.3 KB"}, {fmtBytes(512), "512 B"}, {fmtBytes(0), "0 B"}, {fmtRatio(1, 1282), "1/1,282×"},
		{fmtCount(1237.4), "1,237"}, {fmtCount(-100_763), "-100,763"}, {fmtCount(0), "0"},
		{fmtRatio(27, 100), "0.27×"}, {fmtRatio(3500, 100), "35×"}, {fmtRatio(1, 0), "—"},
		{verdict(0.27, 0.25), "missed by 8%"}, {verdict(9, 30), "met"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.got)
	}
}

func TestFlagsAndSelection(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"-count", "0"}, {"-procs", "0"}, {"extra"}, {"-nope"}} {
		_, err := parseFlags(args, &out)
		assert.Error(t, err, "%v", args)
	}
	cfg, err := parseFlags(nil, &out)
	require.NoError(t, err)
	assert.Equal(t, config{count: 3, benchtime: "1s", procs: 2, docs: filepath.Join("..", "..", "docs")}, cfg)

	cs, err := selectCases(`^loop/eino/`)
	require.NoError(t, err)
	assert.Len(t, cs, len(compare.LoopTurns))
	_, err = selectCases(`^nothing$`)
	assert.ErrorContains(t, err, "matches no case")
	_, err = selectCases(`(`)
	assert.Error(t, err)
}

func TestMedian(t *testing.T) {
	ns := func(vs ...float64) []figure {
		out := make([]figure, len(vs))
		for i, v := range vs {
			out[i] = figure{Ns: v}
		}
		return out
	}
	get := func(f figure) float64 { return f.Ns }
	assert.Equal(t, 0.0, median(nil, get))
	assert.Equal(t, 2.0, median(ns(3, 1, 2), get))
	assert.Equal(t, 2.5, median(ns(4, 1, 2, 3), get))
}
