package session_test

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/session"
)

// BenchmarkUnmarshalSnapshotLarge decodes snapshots of about 10 MB and
// 100 MB of ~100-byte events and reports the throughput and the peak heap
// the decoding added, as a multiple of the snapshot's size (the target is
// under 4).
func BenchmarkUnmarshalSnapshotLarge(b *testing.B) {
	for _, mb := range []int{10, 100} {
		b.Run(fmt.Sprintf("size=%dMB", mb), func(b *testing.B) {
			s := benchSession(b, 0)
			n := mb << 20 / 100
			events := make([]Event, n)
			for i := range events {
				events[i] = Event{ID: i, Kind: "observation", Body: "a line of tool output that is about eighty characters long......"}
			}
			if err := session.Seed(s, events...); err != nil {
				b.Fatal(err)
			}
			data, err := session.MarshalSnapshot(s.Snapshot(), s.Registry())
			if err != nil {
				b.Fatal(err)
			}
			events = nil
			_ = s.Close()
			// The peak heap is taken on one decode before the timed ones,
			// so sampling it does not slow what is timed.
			runtime.GC()
			base := heapBytes()
			stop := sampleHeap()
			snap, err := session.UnmarshalSnapshot(data, s.Registry())
			peak := stop()
			if err != nil {
				b.Fatal(err)
			}
			runtime.KeepAlive(snap)
			worst := float64(peak-base) / float64(len(data))
			snap = session.Snapshot{}
			runtime.GC()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := session.UnmarshalSnapshot(data, s.Registry()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(worst, "peak-heap/size")
		})
	}
}

func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// sampleHeap samples the heap until the returned func is called, which
// returns the highest value seen.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	peak.Store(heapBytes())
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if h := heapBytes(); h > peak.Load() {
					peak.Store(h)
				}
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		if h := heapBytes(); h > peak.Load() {
			peak.Store(h)
		}
		return peak.Load()
	}
}
