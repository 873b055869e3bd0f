package remote

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
)

// A message's MAC passes for its job, kind and bytes only: taken onto
// another job, passed off as another kind, changed, or made without the
// secret, it fails.
func TestAMACPassesForItsJobKindAndBytesOnly(t *testing.T) {
	secret, other := newSecret(), newSecret()
	h := nats.Header{}
	sign(h, secret, macResult, "x.job_1", []byte(`{"text":"done"}`))
	for _, tc := range []struct {
		name   string
		secret []byte
		kind   string
		key    string
		data   string
		h      nats.Header
		want   bool
	}{
		{"as sent", secret, macResult, "x.job_1", `{"text":"done"}`, h, true},
		{"another job", secret, macResult, "x.job_2", `{"text":"done"}`, h, false},
		{"another kind", secret, macBatch, "x.job_1", `{"text":"done"}`, h, false},
		{"other bytes", secret, macResult, "x.job_1", `{"text":"PWNED"}`, h, false},
		{"another secret", other, macResult, "x.job_1", `{"text":"done"}`, h, false},
		{"no secret", nil, macResult, "x.job_1", `{"text":"done"}`, h, false},
		{"no MAC", secret, macResult, "x.job_1", `{"text":"done"}`, nats.Header{}, false},
		{"not hex", secret, macResult, "x.job_1", `{"text":"done"}`, nats.Header{macHeader: []string{"zz"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, authentic(tc.h, tc.secret, tc.kind, tc.key, []byte(tc.data)))
		})
	}
	assert.NotEqual(t, secret, other, "each job has its own secret")
}
