package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// BenchmarkSync measures what a call costs besides its command (faked
// here) for a session of 1,000 files of 1 KB: the first, which writes
// them all, and a later one, which writes none.
func BenchmarkSync(b *testing.B) {
	tool, err := shell.New(shell.Options{Unconfined: true, Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer tool.Close()
	shell.Fake(tool, func(context.Context, []string, time.Duration) shell.Ran { return shell.Ran{} })
	set, _ := vfs.Tools(vfs.Options{})
	set, _ = set.With(tool)
	ctx := context.Background()
	base, _ := session.New()
	defer base.Close()
	_ = set.Install(ctx, base)
	content := string(make([]byte, 1024))
	for i := range 1000 {
		_ = base.Dispatch(ctx, vfs.FileWritten{Path: fmt.Sprintf("d%02d/f%03d.txt", i%20, i), Content: content, Version: 1})
	}
	args := json.RawMessage(`{"command": "true"}`)
	call := func(b *testing.B, s *session.Session) {
		out := tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, args)
		if !out.Success {
			b.Fatal(out.Text)
		}
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s, _ := base.Fork()
			b.StartTimer()
			call(b, s)
			b.StopTimer()
			_ = s.Close()
			b.StartTimer()
		}
	})
	b.Run("again", func(b *testing.B) {
		s, _ := base.Fork()
		defer s.Close()
		call(b, s)
		for b.Loop() {
			call(b, s)
		}
	})
}
