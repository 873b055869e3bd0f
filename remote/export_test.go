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
