package remote

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"

	"github.com/nats-io/nats.go"
)

// Every message about a job that a worker sends the parent (progress,
// result, a delta, an approval request, an after-tool request) and every
// message the parent sends the worker about it (an approval, an
// after-tool note, a cancel) carries a MAC by the job's secret: a
// fresh random key that travels inside the job, which only the pool's
// workers read. Anyone else who can publish on the server can send a
// message on the job's subjects, but not one that passes: the parent
// drops it, counts it (Executor.Rejected) and logs it once per job; a
// worker ignores a cancel that fails and logs the first one.
//
// The MAC is HMAC-SHA256 over the message kind, the job's key (its
// executor and token) and the exact bytes sent, so that a message taken
// from one job or of one kind does not pass for another; within a kind,
// the bytes carry the attempt and the batch number, so a message sent
// again changes nothing.

// secretBytes is the size of a job's secret.
const secretBytes = 32

// macHeader carries a message's MAC, in hex.
const macHeader = "Offshoot-Mac"

// What a MAC binds a message to: its kind.
const (
	macBatch     = "batch"
	macResult    = "result"
	macDelta     = "delta"
	macAsk       = "approval-request"
	macApproval  = "approval"
	macAfterAsk  = "after-tool-request"
	macAfterNote = "after-tool"
	macCancel    = "cancel"
)

// newSecret returns a fresh job secret.
func newSecret() []byte {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return b
}

// mac returns the MAC of data, sent as kind about the job of key.
func mac(secret []byte, kind, key string, data []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte("offshoot/3\x00" + kind + "\x00" + key + "\x00"))
	h.Write(data)
	return h.Sum(nil)
}

// sign adds data's MAC to the headers of its message.
func sign(h nats.Header, secret []byte, kind, key string, data []byte) {
	h.Set(macHeader, hex.EncodeToString(mac(secret, kind, key, data)))
}

// authentic reports whether the message carries the MAC of its data, as
// kind about the job of key.
func authentic(h nats.Header, secret []byte, kind, key string, data []byte) bool {
	got, err := hex.DecodeString(h.Get(macHeader))
	return err == nil && len(secret) == secretBytes && hmac.Equal(got, mac(secret, kind, key, data))
}
