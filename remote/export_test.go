package remote

import (
	"time"

	"github.com/nats-io/nats.go"
)

// SetMissingWait sets how long x waits for the batches a result counts.
func SetMissingWait(x *Executor, d time.Duration) { x.missingWait = d }

// JobReply reads a job message's reply subject and token.
func JobReply(data []byte) (reply, token string, err error) {
	j, err := decodeJob(data)
	if err != nil {
		return "", "", err
	}
	return j.Reply, j.Token, nil
}

// Observe makes x tell f of each message it rejects ("rejected") and
// each notice it does not confirm when it comes ("notice").
func Observe(x *Executor, f func(event string)) { x.observe = f }

// ResultHeader is the headers of a worker's result data about the job
// of the job message jobData: its kind and MAC.
func ResultHeader(jobData, data []byte) (nats.Header, error) {
	j, err := decodeJob(jobData)
	if err != nil {
		return nil, err
	}
	return replyHeader(j.Secret, macResult, j.key(), data), nil
}

// HoldTaken calls taken when a worker has decoded a job and not yet
// started it, and seen when a worker has handled a cancel, until the test
// ends.
func HoldTaken(t interface{ Cleanup(func()) }, taken, seen func(key string)) {
	hooks.taken, hooks.cancelSeen = taken, seen
	t.Cleanup(func() { hooks.taken, hooks.cancelSeen = nil, nil })
}

// SetObjectsTTL sets the snapshot bucket's TTL for the buckets created
// until the test ends.
func SetObjectsTTL(t interface{ Cleanup(func()) }, d time.Duration) {
	old := objectsTTL
	objectsTTL = d
	t.Cleanup(func() { objectsTTL = old })
}

// HoldFetches sets how long a worker's request for jobs waits on the
// server, and calls fetched when one ends, until the test ends.
func HoldFetches(t interface{ Cleanup(func()) }, wait time.Duration, fetched func()) {
	old := fetchWait
	fetchWait, hooks.fetched = wait, fetched
	t.Cleanup(func() { fetchWait, hooks.fetched = old, nil })
}
