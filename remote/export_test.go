package remote

import "time"

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
