package shell_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
)

// FuzzArguments decodes any arguments a model may send, with commands
// faked (nothing runs): a call never panics, fails with words for the
// model when the arguments are wrong, and otherwise runs exactly the
// command given, for at most 10 minutes.
func FuzzArguments(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `null`, `[]`, `{"command":""}`, `{"command":"ls"}`, `{"command":"ls","timeout":1000}`,
		`{"command":"ls","timeout":-1}`, `{"command":"ls","timeout":99999999999}`, `{"command":"ls","timeout":1.5}`,
		`{"command":"a\u0000b"}`, `{"command":"ls","description":"list"}`, `{"command":"ls","extra":1}`, `{"command":7}`,
	} {
		f.Add(seed)
	}
	tool, err := shell.New(shell.Options{Unconfined: true, Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = tool.Close() })
	var got struct {
		argv    []string
		timeout time.Duration
	}
	shell.Fake(tool, func(_ context.Context, argv []string, timeout time.Duration) shell.Ran {
		got.argv, got.timeout = argv, timeout
		return shell.Ran{Output: "ok"}
	})
	f.Fuzz(func(t *testing.T, args string) {
		s := newSession(t, tool, nil)
		got.argv, got.timeout = nil, 0
		out := tool.Call(context.Background(), &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(args))
		if !out.Success {
			if out.Text == "" {
				t.Fatalf("Call(%q) failed without words for the model", args)
			}
			if got.argv != nil {
				t.Fatalf("Call(%q) failed but ran %q", args, got.argv)
			}
			return
		}
		p, ok := out.Params.(shell.Params)
		if !ok {
			t.Fatalf("Call(%q) succeeded with params %T", args, out.Params)
		}
		if len(got.argv) < 3 || got.argv[len(got.argv)-1] != p.Command || got.argv[len(got.argv)-2] != "-c" {
			t.Fatalf("Call(%q) ran %q, not the command %q", args, got.argv, p.Command)
		}
		if p.Command == "" || strings.ContainsRune(p.Command, 0) {
			t.Fatalf("Call(%q) ran the command %q", args, p.Command)
		}
		if got.timeout <= 0 || got.timeout > shell.MaxTimeout {
			t.Fatalf("Call(%q) ran with the timeout %s", args, got.timeout)
		}
	})
}
