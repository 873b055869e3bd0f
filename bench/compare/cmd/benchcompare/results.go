package main

import (
	"slices"

	"github.com/offshoot-dev/offshoot/bench/compare"
)

// figure is one case's result: medians over the runs.
type figure struct {
	Ns, Bytes, Allocs float64
	// Extra holds the metrics a benchmark reported (KB/child, …).
	Extra map[string]float64
}

// results are the medians of every case, by workload and name.
type results map[string]figure

func key(workload, name string) string { return workload + "/" + name }

// samples collects every run's figure of every case.
type samples map[string][]figure

func (s samples) add(c compare.Case, f figure) {
	k := key(c.Workload, c.Name())
	s[k] = append(s[k], f)
}

// medians reduces each case's runs to their medians, metric by metric.
func (s samples) medians() results {
	out := results{}
	for k, runs := range s {
		var f figure
		f.Ns = median(runs, func(f figure) float64 { return f.Ns })
		f.Bytes = median(runs, func(f figure) float64 { return f.Bytes })
		f.Allocs = median(runs, func(f figure) float64 { return f.Allocs })
		for name := range runs[0].Extra {
			if f.Extra == nil {
				f.Extra = map[string]float64{}
			}
			f.Extra[name] = median(runs, func(f figure) float64 { return f.Extra[name] })
		}
		out[k] = f
	}
	return out
}

// median is the middle value of get over runs (the mean of the two middle
// ones for an even count); 0 for none.
func median(runs []figure, get func(figure) float64) float64 {
	if len(runs) == 0 {
		return 0
	}
	vs := make([]float64, len(runs))
	for i, r := range runs {
		vs[i] = get(r)
	}
	slices.Sort(vs)
	m := len(vs) / 2
	if len(vs)%2 == 1 {
		return vs[m]
	}
	return (vs[m-1] + vs[m]) / 2
}

// loop returns the loop figure of fw at K=k.
func (r results) loop(fw string, k int) (figure, bool) {
	f, ok := r[key(compare.Loop, compare.Case{Workload: compare.Loop, Framework: fw, Size: k}.Name())]
	return f, ok
}

// perTurn is (K=50 − K=10) / 40 of fw, the cost of one more turn.
func (r results) perTurn(fw string) (figure, bool) {
	a, ok1 := r.loop(fw, 10)
	b, ok2 := r.loop(fw, 50)
	if !ok1 || !ok2 {
		return figure{}, false
	}
	return diff(b, a, 40), true
}

// growth compares fw's per-turn cost from K=10 to K=50 with the one from
// K=1 to K=10: about 1 when a turn costs the same however many came before,
// above 1 when turns get dearer with K.
func (r results) growth(fw string) (float64, bool) {
	a, ok1 := r.loop(fw, 1)
	b, ok2 := r.loop(fw, 10)
	late, ok3 := r.perTurn(fw)
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	early := diff(b, a, 9)
	if early.Ns <= 0 {
		return 0, false
	}
	return late.Ns / early.Ns, true
}

// handoff returns the hand-off figure of fw in variant v at N=n.
func (r results) handoff(fw, v string, n int) (figure, bool) {
	f, ok := r[key(compare.Handoff, compare.Case{Workload: compare.Handoff, Framework: fw, Variant: v, Size: n}.Name())]
	return f, ok
}

// handoffCost is the parent turn with the hand-off minus the parent-only
// control, at N=n.
func (r results) handoffCost(fw string, n int) (figure, bool) {
	with, ok1 := r.handoff(fw, compare.WithHandoff, n)
	without, ok2 := r.handoff(fw, compare.ParentOnly, n)
	if !ok1 || !ok2 {
		return figure{}, false
	}
	return diff(with, without, 1), true
}

// scale returns the scale figure of fw, whatever number of children it ran.
func (r results) scale(fw string) (figure, int, bool) {
	for _, c := range compare.Cases() {
		if c.Workload == compare.Scale && c.Framework == fw {
			f, ok := r[key(c.Workload, c.Name())]
			return f, c.Size, ok
		}
	}
	return figure{}, 0, false
}

// diff is (a − b) / over, metric by metric.
func diff(a, b figure, over float64) figure {
	return figure{Ns: (a.Ns - b.Ns) / over, Bytes: (a.Bytes - b.Bytes) / over, Allocs: (a.Allocs - b.Allocs) / over}
}
