package compare

import "testing"

// BenchmarkLoop is workload A: K turns of one echo call, then a final
// answer, per framework. Per-turn cost is (K=50 − K=10) / 40.
func BenchmarkLoop(b *testing.B) { runWorkload(b, Loop) }

// BenchmarkHandoff is workload B: a parent holding N events hands its
// context to a one-turn child ("handoff"), against the same parent turn
// calling echo instead ("parent-only").
func BenchmarkHandoff(b *testing.B) { runWorkload(b, Handoff) }

// BenchmarkScale reports the live heap concurrent children of a parent
// holding 100,000 events add (KB/child, and scaled to 1,000 children).
func BenchmarkScale(b *testing.B) { runWorkload(b, Scale) }

func runWorkload(b *testing.B, workload string) {
	for _, c := range Cases() {
		if c.Workload == workload {
			b.Run(c.Name(), c.Bench)
		}
	}
}
