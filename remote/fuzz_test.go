package remote

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func FuzzDecodeJob(f *testing.F) {
	f.Add([]byte(`{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"agent-1","id":"agent-1","reply":"offshoot.progress.x1.agent-1","session":"s1","schema":"1","fingerprint":"abc","ns":"a","key":"b","messages":[{"role":"system","content":"hi"}]}`))
	f.Add([]byte(`{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"a.b","reply":"elsewhere"}`))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`[`))
	f.Add([]byte(`{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"t","id":"i","session":"s","reply":"offshoot.progress.a.t","snapshot":"zz","max_turns":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := decodeJob(data)
		if err != nil {
			return
		}
		if !safeToken(j.Token) || !validReply(j.Reply, "offshoot.progress.") || len(j.Messages) > maxJobMessages {
			t.Fatalf("an invalid job was accepted: %+v", j)
		}
	})
}

func TestDecodeJobRefusesWhatIsNotAJob(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", `[`, "not a job"},
		{"other version", `{"v":2}`, "wire version 2"},
		{"no secret", `{"v":5,"token":"t","id":"i","session":"s","reply":"offshoot.progress.a.t"}`, "its secret is 0 bytes"},
		{"reply elsewhere", `{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"t","id":"i","session":"s","reply":"_INBOX.x"}`, "not a progress subject"},
		{"token with a dot", `{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"a.b","id":"i","session":"s","reply":"offshoot.progress.a.b"}`, "not a subject token"},
		{"bad snapshot", `{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"t","id":"i","session":"s","reply":"offshoot.progress.a.t","snapshot":"../x"}`, "not a sha256"},
		{"after-tool subject elsewhere", `{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"t","id":"i","session":"s","reply":"offshoot.progress.a.t","after_tool":"offshoot.approve.a.t"}`, "not an after-tool subject"},
		{"the last version", `{"v":4,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"t","id":"i","session":"s","reply":"offshoot.progress.a.t"}`, "wire version 4 and this worker reads version 5"},
		{"negative limit", `{"v":5,"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","token":"t","id":"i","session":"s","reply":"offshoot.progress.a.t","max_turns":-1}`, "negative limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeJob([]byte(tc.data))
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := decodeJob(make([]byte, maxJobBytes+1))
	require.ErrorContains(t, err, "over the")
}
