package transcript_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// A record that says running after the process that ran the agent died
// (SIGKILL, a crash, a full disk) is read as interrupted; one whose
// process still runs stays running.
func TestARecordOfADeadProcessReadsInterrupted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("processes are checked on Linux only")
	}
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	dead := cmd.Process.Pid
	host, _ := os.Hostname()
	dir := t.TempDir()
	sub := filepath.Join(dir, "root", "subagents")
	require.NoError(t, os.MkdirAll(sub, 0o700))
	write := func(id string, owner *transcript.Owner) {
		meta := transcript.Meta{AgentID: id, Type: "worker", Status: "running", Owner: owner,
			StartedAt: time.Now(), UpdatedAt: time.Now(), RootSessionID: "root"}
		data, err := json.Marshal(meta)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(sub, "agent-"+id+".meta.json"), data, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(sub, "agent-"+id+".jsonl"), nil, 0o600))
	}
	write("dead", &transcript.Owner{PID: dead, Host: host})
	write("reused", &transcript.Owner{PID: os.Getpid(), Host: host, Token: "another-boot:1"})
	write("elsewhere", &transcript.Owner{PID: dead, Host: host + "-other"})
	write("old", nil) // a record written before owners were kept

	list, err := transcript.Dir(dir).List()
	require.NoError(t, err)
	got := map[string]string{}
	for _, m := range list {
		got[m.AgentID] = m.Status
	}
	assert.Equal(t, map[string]string{
		"dead":      "interrupted",
		"reused":    "interrupted",
		"elsewhere": "running",
		"old":       "running",
	}, got)
}
