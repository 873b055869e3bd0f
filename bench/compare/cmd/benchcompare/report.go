package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/offshoot-dev/offshoot/bench/compare"
)

// The targets the report checks offshoot against.
const (
	targetTurnRatio     = 0.25 // offshoot's per-turn time over eino's
	targetTurnAllocs    = 25   // offshoot's allocations per turn
	targetRoundTripNs   = 10_000
	targetFlat          = 1.5  // hand-off cost at N=100,000 over N=10
	targetScaleMB       = 30.0 // live heap added by 1,000 children
	scaleMetricPerChild = "KB/child"
)

var (
	loopFrameworks    = []string{compare.Offshoot, compare.Eino, compare.Genkit, compare.LangChainGo}
	handoffFrameworks = []string{compare.Offshoot, compare.Eino, compare.Genkit}
)

// report writes the generated section of docs/benchmarks.md.
type report struct {
	w   io.Writer
	r   results
	m   machine
	cfg config
}

func (p *report) f(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p *report) write() {
	p.header()
	p.loop()
	p.handoff()
	p.scale()
}

func (p *report) header() {
	p.f("**Machine:** %s, %d cores, %s, %s, %s, GOMAXPROCS=%d. **Date:** %s. Medians of %d runs of %s each per case",
		orUnknown(p.m.CPU), p.m.Cores, orUnknown(p.m.Memory), p.m.OS, p.m.Go, p.m.Procs, p.m.Date, p.cfg.count, p.cfg.benchtime)
	p.f(", all frameworks interleaved in each run.\n\n")
	commit := "this checkout"
	if p.m.Commit != "" {
		commit = "commit " + p.m.Commit
	}
	p.f("**Versions:** offshoot at %s; %s.\n\n", commit, strings.Join(p.m.Versions, ", "))
}

func (p *report) loop() {
	p.f("### Workload A: the agent loop\n\n")
	p.f("A whole run at K turns of one `echo` call, then a final answer; per extra turn = (K=50 − K=10) / 40. ")
	p.f("Growth compares the per-turn time from K=10 to 50 with the one from K=1 to 10: about 1 when a turn's cost does not depend on the turns before it.\n\n")
	p.f("| framework | K = 1 | K = 10 | K = 50 | per extra turn | bytes / turn | allocs / turn | per turn vs eino | growth |\n")
	p.f("|---|---|---|---|---|---|---|---|---|\n")
	eino, _ := p.r.perTurn(compare.Eino)
	for _, fw := range loopFrameworks {
		row := []string{fw}
		for _, k := range compare.LoopTurns {
			f, ok := p.r.loop(fw, k)
			row = append(row, cell(ok, fmtNs(f.Ns)))
		}
		t, ok := p.r.perTurn(fw)
		g, gok := p.r.growth(fw)
		row = append(row, cell(ok, fmtNs(t.Ns)), cell(ok, fmtBytes(t.Bytes)), cell(ok, fmtCount(t.Allocs)),
			cell(ok, fmtRatio(t.Ns, eino.Ns)), cell(gok, fmt.Sprintf("%.2f", g)))
		p.f("| %s |\n", strings.Join(row, " | "))
	}
	if t, ok := p.r.perTurn(compare.Offshoot); ok && eino.Ns > 0 {
		ratio := t.Ns / eino.Ns
		p.f("\n**Target** ≤ %.2f× eino per turn: offshoot is at **%s** (%s against %s) — %s. ", targetTurnRatio,
			fmtRatio(t.Ns, eino.Ns), fmtNs(t.Ns), fmtNs(eino.Ns), verdict(ratio, targetTurnRatio))
		p.f("≤ %d allocations per turn: **%.1f** — %s.\n", targetTurnAllocs, t.Allocs, verdict(t.Allocs, targetTurnAllocs))
	}
	p.f("\n![Time of a whole run against K, log scales](bench-loop.svg)\n\n")
}

func (p *report) handoff() {
	p.f("### Workload B: handing a parent's context to a subagent\n\n")
	p.f("A whole parent turn from a parent holding N ~100-byte events: with the hand-off (the child answers in one turn), and the parent-only control (the same turn calling `echo` instead).\n\n")
	p.f("| framework | run |")
	sep := "|---|---|"
	for _, n := range compare.HandoffEvents {
		p.f(" N = %s |", fmtCount(float64(n)))
		sep += "---|"
	}
	p.f("\n%s\n", sep)
	for _, fw := range handoffFrameworks {
		for _, v := range []string{compare.WithHandoff, compare.ParentOnly} {
			name := "with the hand-off"
			if v == compare.ParentOnly {
				name = "parent only"
			}
			row := []string{fw, name}
			for _, n := range compare.HandoffEvents {
				f, ok := p.r.handoff(fw, v, n)
				row = append(row, cell(ok, fmtNs(f.Ns)))
			}
			p.f("| %s |\n", strings.Join(row, " | "))
		}
	}
	p.f("| offshoot Task tool (fork-context) | not measured yet: the library has no Task tool yet |%s\n", strings.Repeat(" |", len(compare.HandoffEvents)))

	p.f("\nThe hand-off itself, the difference of the two rows (time, bytes, allocations), and its ratio to eino's at the same N:\n\n")
	p.f("| framework |")
	for _, n := range compare.HandoffEvents {
		p.f(" N = %s |", fmtCount(float64(n)))
	}
	p.f("\n%s\n", strings.TrimSuffix(sep, "---|"))
	for _, fw := range handoffFrameworks {
		row := []string{fw}
		for _, n := range compare.HandoffEvents {
			c, ok := p.r.handoffCost(fw, n)
			e, _ := p.r.handoffCost(compare.Eino, n)
			var text string
			switch {
			case c.Ns <= 0:
				// The control took longer: the hand-off is lost in the
				// noise of this run.
				text = fmt.Sprintf("within noise (%s), %s, %s allocs", fmtNs(c.Ns), fmtBytes(c.Bytes), fmtCount(c.Allocs))
			case fw == compare.Eino:
				text = fmt.Sprintf("%s, %s, %s allocs", fmtNs(c.Ns), fmtBytes(c.Bytes), fmtCount(c.Allocs))
			default:
				text = fmt.Sprintf("%s, %s, %s allocs (%s)", fmtNs(c.Ns), fmtBytes(c.Bytes), fmtCount(c.Allocs), fmtRatio(c.Ns, e.Ns))
			}
			row = append(row, cell(ok, text))
		}
		p.f("| %s |\n", strings.Join(row, " | "))
	}
	first, last := compare.HandoffEvents[0], compare.HandoffEvents[len(compare.HandoffEvents)-1]
	lo, ok1 := p.r.handoffCost(compare.Offshoot, first)
	hi, ok2 := p.r.handoffCost(compare.Offshoot, last)
	if ok1 && ok2 {
		var costs []figure
		for _, n := range compare.HandoffEvents {
			if c, ok := p.r.handoffCost(compare.Offshoot, n); ok {
				costs = append(costs, c)
			}
		}
		mid := median(costs, func(f figure) float64 { return f.Ns })
		lowest, highest := costs[0].Ns, costs[0].Ns
		for _, c := range costs {
			lowest, highest = min(lowest, c.Ns), max(highest, c.Ns)
		}
		p.f("\n**Targets** for offshoot: flat in N to %s — the hand-off at N = %s is %s the one at N = %s in time (≤ %.1f×: %s), %s in allocations; ",
			fmtCount(float64(last)), fmtCount(float64(last)), fmtRatio(hi.Ns, lo.Ns), fmtCount(float64(first)), targetFlat,
			verdict(hi.Ns/lo.Ns, targetFlat), fmtRatio(hi.Allocs, lo.Allocs))
		p.f("the whole dispatch round trip ≤ %s: **%s** (the median over these N; from %s to %s) — %s.\n",
			fmtNs(targetRoundTripNs), fmtNs(mid), fmtNs(lowest), fmtNs(highest), verdict(mid, targetRoundTripNs))
	}
	p.f("\n![The hand-off's cost against N, log scales](bench-handoff.svg)\n\n")
}

func (p *report) scale() {
	p.f("### Scale: concurrent children of a parent holding %s events\n\n", fmtCount(compare.ScaleParentEvents))
	p.f("Live heap after a full collection while every child waits inside its model call, minus the live heap before the parent's turn. ")
	p.f("Frameworks that copy the parent's context into each child ran fewer children; their figure is scaled to %s (each child holds its own copy).\n\n", fmtCount(compare.ScaleTarget))
	p.f("| framework | children run | per child | for %s children | vs eino |\n|---|---|---|---|---|\n", fmtCount(compare.ScaleTarget))
	eino, _, _ := p.r.scale(compare.Eino)
	einoKB := eino.Extra[scaleMetricPerChild]
	for _, fw := range handoffFrameworks {
		f, children, ok := p.r.scale(fw)
		kb := f.Extra[scaleMetricPerChild]
		total := fmtBytes(kb * 1024 * compare.ScaleTarget)
		if children < compare.ScaleTarget {
			total += " (scaled)"
		}
		p.f("| %s | %s | %s | %s | %s |\n", fw, cell(ok, fmtCount(float64(children))), cell(ok, fmtBytes(kb*1024)), cell(ok, total), cell(ok, fmtRatio(kb, einoKB)))
	}
	if f, _, ok := p.r.scale(compare.Offshoot); ok {
		mb := f.Extra[scaleMetricPerChild] * compare.ScaleTarget / 1024
		p.f("\n**Target** ≤ %.0f MB added for %s children: offshoot adds **%.1f MB** — %s.\n", targetScaleMB, fmtCount(compare.ScaleTarget), mb, verdict(mb, targetScaleMB))
	}
}

// verdict says whether got is within target (lower is better), and by how
// much it misses.
func verdict(got, target float64) string {
	if got <= target {
		return "met"
	}
	return fmt.Sprintf("missed by %.0f%%", (got/target-1)*100)
}

func cell(ok bool, text string) string {
	if !ok {
		return "—"
	}
	return text
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
