package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A backend written in another module, from package store alone (see
// testdata/thirdparty), runs the suite: everything a stranger needs to
// implement store.Store — its errors, its limits, its checks — and to
// test it is exported.
func TestAnotherModuleRunsTheSuite(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the module in testdata/thirdparty cannot be built; install Go, or put it on PATH, to run this test")
	}
	if testing.Short() {
		t.Skip("builds and tests another module; run without -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a watchdog, not a bar
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "test", "-count=1", "./...")
	cmd.Dir = "testdata/thirdparty"
	// Its own go.mod and go.sum, nothing of a workspace, and no change
	// to either (a missing requirement is an error, not a download).
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test in testdata/thirdparty:\n%s", out)
}
