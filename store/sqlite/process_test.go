package sqlite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// The environment of a writer process that TestProcesses starts.
const (
	writerEnv = "OFFSHOOT_SQLITE_TEST_WRITER" // the writer's name
	pathEnv   = "OFFSHOOT_SQLITE_TEST_PATH"
	countEnv  = "OFFSHOOT_SQLITE_TEST_COUNT"
)

// TestProcesses starts writer processes at once on a file that does not
// exist yet: they create it, its tables and one session between them, and
// append to that session, each going on from the log's end whenever
// another appended first. The log holds every writer's batches, once each,
// one after the other.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	const writers, count = 4, 30
	path := filepath.Join(t.TempDir(), "shared", "sessions.db")
	cmds := make([]*exec.Cmd, writers)
	outs := make([]bytes.Buffer, writers)
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1", "-test.v")
		cmds[i].Env = append(os.Environ(), writerEnv+"="+fmt.Sprint("w", i), pathEnv+"="+path, countEnv+"="+strconv.Itoa(count))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
	}
	for _, c := range cmds {
		require.NoError(t, c.Start())
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer w%d: %v\n%s", i, err, outs[i].String())
		}
	}

	ctx := context.Background()
	st, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Check(ctx))
	h, err := st.Header(ctx, "shared")
	require.NoError(t, err)
	assert.Equal(t, uint64(writers*count), h.Seq)
	per := map[string]int{}
	next := uint64(1)
	for b, err := range st.Batches(ctx, "shared", 0, 0) {
		require.NoError(t, err)
		require.Equal(t, next, b.Seq)
		var w struct{ Writer string }
		require.NoError(t, json.Unmarshal(b.Events[0].Data, &w))
		per[w.Writer]++
		next = b.Last() + 1
	}
	for i := range writers {
		assert.Equal(t, count, per[fmt.Sprint("w", i)], "batches of writer w%d", i)
	}
}

// TestWriterProcess is a writer of TestProcesses when started by it, and
// nothing otherwise.
func TestWriterProcess(t *testing.T) {
	name := os.Getenv(writerEnv)
	if name == "" {
		t.Skip("a process of TestProcesses")
	}
	path := os.Getenv(pathEnv)
	count, err := strconv.Atoi(os.Getenv(countEnv))
	require.NoError(t, err)
	ctx := context.Background()
	st, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	if err := st.Create(ctx, store.Header{ID: "shared"}); err != nil && !errors.Is(err, store.ErrExists) {
		t.Fatal(err)
	}
	for done := 0; done < count; {
		h, err := st.Header(ctx, "shared")
		require.NoError(t, err)
		b := store.Batch{Seq: h.Seq + 1, Events: []store.Event{{Type: "test.Write", Data: json.RawMessage(fmt.Sprintf(`{"writer":%q,"n":%d}`, name, done))}}}
		switch err := st.Append(ctx, "shared", b); {
		case err == nil:
			done++
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("%s at seq %d: %v", name, b.Seq, err)
		}
	}
}
