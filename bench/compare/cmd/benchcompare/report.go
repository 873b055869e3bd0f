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
	loopFrameworks    = []string{compare.Offshoot, compare.OffshootStream, compare.Eino, compare.EinoStream, compare.Genkit, compare.LangChainGo}
	handoffFrameworks = []string{compare.Offshoot, compare.OffshootTask, compare.Eino, compare.Genkit}
	// offshootFronts are offshoot's two hand-off front ends, which the
	// hand-off and scale targets apply to, with what the report calls them.
	offshootFronts = []struct{ fw, name string }{
		{compare.Offshoot, "`dispatch_subagent`"},
		{compare.OffshootTask, "the Task tool with fork-context"},
	}
)

// streaming says which loop rows run with streaming on.
var streaming = map[string]bool{compare.OffshootStream: true, compare.EinoStream: true}

// einoLike is the eino row a loop row is compared with: eino in the same
// mode, streaming or not.
func einoLike(fw string) string {
	if streaming[fw] {
		return compare.EinoStream
	}
	return compare.Eino
}

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
	p.f("The `-stream` rows run with streaming on: the model streams each tool call as one piece and the final answer in four, and an observer reads every piece. ")
	p.f("Each row's ratio is to eino in the same mode: a `-stream` row's to eino-stream, the others' to eino. ")
	p.f("Growth compares the per-turn time from K=10 to 50 with the one from K=1 to 10: about 1 when a turn's cost does not depend on the turns before it.\n\n")
	p.f("| framework | K = 1 | K = 10 | K = 50 | per extra turn | bytes / turn | allocs / turn | per turn vs eino | growth |\n")
	p.f("|---|---|---|---|---|---|---|---|---|\n")
	for _, fw := range loopFrameworks {
		row := []string{fw}
		for _, k := range compare.LoopTurns {
			f, ok := p.r.loop(fw, k)
			row = append(row, cell(ok, fmtNs(f.Ns)))
		}
		t, ok := p.r.perTurn(fw)
		e, eok := p.r.perTurn(einoLike(fw))
		g, gok := p.r.growth(fw)
		row = append(row, cell(ok, fmtNs(t.Ns)), cell(ok, fmtBytes(t.Bytes)), cell(ok, fmtCount(t.Allocs)),
			cell(ok && eok, fmtRatio(t.Ns, e.Ns)), cell(gok, fmt.Sprintf("%.2f", g)))
		p.f("| %s |\n", strings.Join(row, " | "))
	}
	p.f("\n")
	stream, sok := p.r.perTurn(compare.OffshootStream)
	einoStream, esok := p.r.perTurn(compare.EinoStream)
	plain, pok := p.r.perTurn(compare.Offshoot)
	eino, eok := p.r.perTurn(compare.Eino)
	if sok && esok && einoStream.Ns > 0 {
		p.f("**Target** with the conversation recorded in the session and streaming on, ≤ %.2f× eino per turn: offshoot-stream is at **%s** eino-stream (%s against %s) — %s",
			targetTurnRatio, fmtRatio(stream.Ns, einoStream.Ns), fmtNs(stream.Ns), fmtNs(einoStream.Ns), verdict(stream.Ns/einoStream.Ns, targetTurnRatio))
		if eok {
			p.f(" (%s eino without streaming)", fmtRatio(stream.Ns, eino.Ns))
		}
		p.f("; ≤ %d allocations per turn: **%.1f** — %s.\n", targetTurnAllocs, stream.Allocs, verdict(stream.Allocs, targetTurnAllocs))
	}
	if pok && eok && eino.Ns > 0 {
		p.f("Without streaming, offshoot is at **%s** eino (%s against %s) — %s; %.1f allocations per turn — %s.\n",
			fmtRatio(plain.Ns, eino.Ns), fmtNs(plain.Ns), fmtNs(eino.Ns), verdict(plain.Ns/eino.Ns, targetTurnRatio),
			plain.Allocs, verdict(plain.Allocs, targetTurnAllocs))
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
	p.f("\n")
	for _, front := range offshootFronts {
		p.handoffTargets(front.fw, front.name)
	}
	p.f("![The hand-off's cost against N, log scales](bench-handoff.svg)\n\n")
}

// handoffTargets writes the hand-off targets of one of offshoot's front
// ends, fw, called name.
func (p *report) handoffTargets(fw, name string) {
	first, last := compare.HandoffEvents[0], compare.HandoffEvents[len(compare.HandoffEvents)-1]
	lo, ok1 := p.r.handoffCost(fw, first)
	hi, ok2 := p.r.handoffCost(fw, last)
	if !ok1 || !ok2 {
		return
	}
	var costs []figure
	for _, n := range compare.HandoffEvents {
		if c, ok := p.r.handoffCost(fw, n); ok {
			costs = append(costs, c)
		}
	}
	mid := median(costs, func(f figure) float64 { return f.Ns })
	lowest, highest := costs[0].Ns, costs[0].Ns
	for _, c := range costs {
		lowest, highest = min(lowest, c.Ns), max(highest, c.Ns)
	}
	p.f("**Targets** for %s (%s): flat in N to %s — the hand-off at N = %s is %s the one at N = %s in time (≤ %.1f×: %s), %s in allocations; ",
		fw, name, fmtCount(float64(last)), fmtCount(float64(last)), fmtRatio(hi.Ns, lo.Ns), fmtCount(float64(first)), targetFlat,
		verdict(hi.Ns/lo.Ns, targetFlat), fmtRatio(hi.Allocs, lo.Allocs))
	p.f("the whole round trip ≤ %s: **%s** (the median over these N; from %s to %s) — %s.\n\n",
		fmtNs(targetRoundTripNs), fmtNs(mid), fmtNs(lowest), fmtNs(highest), verdict(mid, targetRoundTripNs))
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
	var got []string
	for _, front := range offshootFronts {
		if f, _, ok := p.r.scale(front.fw); ok {
			mb := f.Extra[scaleMetricPerChild] * compare.ScaleTarget / 1024
			got = append(got, fmt.Sprintf("%s adds **%.1f MB** — %s", front.fw, mb, verdict(mb, targetScaleMB)))
		}
	}
	if len(got) > 0 {
		p.f("\n**Target** ≤ %.0f MB added for %s children: %s.\n", targetScaleMB, fmtCount(compare.ScaleTarget), strings.Join(got, "; "))
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
