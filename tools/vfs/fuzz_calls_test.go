package vfs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// fuzzTools are the tools a fuzzed script calls, by the first byte of an
// operation; the last entry sends raw bytes as the arguments of the tool
// the flags choose.
var fuzzTools = []string{"ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm", "raw"}

// fuzzOp is one tool call of a fuzzed script.
type fuzzOp struct {
	tool  byte
	flags byte
	a, b  string
}

// decodeScript reads a byte stream as at most 40 operations, each
// [tool][flags][len a][a…][len b][b…]; missing bytes end the script.
func decodeScript(data []byte) []fuzzOp {
	var ops []fuzzOp
	next := func(n int) ([]byte, bool) {
		if len(data) < n {
			return nil, false
		}
		out := data[:n]
		data = data[n:]
		return out, true
	}
	for len(ops) < 40 {
		head, ok := next(3)
		if !ok {
			break
		}
		a, ok := next(int(head[2]))
		if !ok {
			break
		}
		n, ok := next(1)
		if !ok {
			break
		}
		b, ok := next(int(n[0]))
		if !ok {
			break
		}
		ops = append(ops, fuzzOp{tool: head[0], flags: head[1], a: string(a), b: string(b)})
	}
	return ops
}

// encodeScript is the inverse of decodeScript, for seeds.
func encodeScript(ops ...fuzzOp) []byte {
	var out []byte
	for _, op := range ops {
		out = append(out, op.tool, op.flags, byte(len(op.a)))
		out = append(out, op.a...)
		out = append(out, byte(len(op.b)))
		out = append(out, op.b...)
	}
	return out
}

// pathOf makes a path from fuzz bytes: as given when flags bit 1 is set,
// otherwise spelled with a small alphabet, so that calls meet the same
// files and directories often.
func pathOf(s string, flags byte) string {
	if flags&2 != 0 {
		return s
	}
	parts := []string{"a", "b", "/", "c.md", "..", ".", "d/"}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(parts[int(s[i])%len(parts)])
	}
	return b.String()
}

// argsOf builds the JSON arguments of op.
func argsOf(op fuzzOp) (string, string) {
	name := fuzzTools[int(op.tool)%len(fuzzTools)]
	p := pathOf(op.a, op.flags)
	content := op.b
	if op.flags&4 != 0 { // a long content: the text repeated
		content = strings.Repeat(op.b, 1+int(op.flags>>3)*400)
	}
	var v any
	switch name {
	case "ls", "rm":
		v = map[string]any{"path": p}
	case "read_file":
		v = map[string]any{"file_path": p, "offset": int(op.flags >> 4), "limit": 1 + int(op.flags&15)}
	case "write_file":
		v = map[string]any{"file_path": p, "content": content}
	case "edit_file":
		cut := len(op.b) / 2
		v = map[string]any{"file_path": p, "old_string": op.b[:cut], "new_string": content[cut:], "replace_all": op.flags&1 != 0}
	case "glob":
		v = map[string]any{"pattern": op.b, "path": p}
	case "grep":
		v = map[string]any{"pattern": op.b, "path": p, "glob": pathOf(op.a, op.flags^2)}
	case "raw":
		return fuzzTools[int(op.flags)%(len(fuzzTools)-1)], op.a + op.b
	}
	args, _ := json.Marshal(v)
	return name, string(args)
}

func fuzzSeeds() [][]byte {
	return [][]byte{
		encodeScript(fuzzOp{2, 0, "\x00\x03", "hello\nworld\n"}, fuzzOp{1, 0x13, "\x00\x03", ""}, fuzzOp{0, 0, "", ""}),
		encodeScript(fuzzOp{2, 2, "docs/a.md", "TODO one\nTODO two\n"}, fuzzOp{5, 2, "docs", "TODO"}, fuzzOp{4, 2, "", "**/*.md"}),
		encodeScript(fuzzOp{2, 2, "x.txt", "aaaa"}, fuzzOp{3, 2 | 1 | 4 | 0xf8, "x.txt", "ab"}, fuzzOp{3, 2 | 1, "x.txt", "aa"}),
		encodeScript(fuzzOp{2, 2, "a/b/c.md", "c"}, fuzzOp{2, 2, "a/b", "file where a directory is"}, fuzzOp{6, 2, "a", ""}, fuzzOp{0, 2, "a", ""}),
		encodeScript(fuzzOp{2, 2, "notes...md", "dots"}, fuzzOp{1, 2, "../notes...md", ""}, fuzzOp{5, 2, "", "(.*a){400}z"}),
		encodeScript(fuzzOp{5, 2, "", "[a-z]{1000}[0-9]{1000}[A-Z]{1000}[a-f]{1000}[g-k]{1000}"}, fuzzOp{4, 2, "", strings.Repeat("**/a/", 15) + "b"}),
		encodeScript(fuzzOp{7, 2, `{"file_path":`, `"q.md","content":"x"}`}, fuzzOp{7, 0, `{"path":"q.md","extra":1}`, ""}, fuzzOp{7, 4, `[]`, ``}),
		encodeScript(fuzzOp{2, 2, "u.md", "é\u00e9\U0001F600"}, fuzzOp{3, 2 | 1 | 4 | 0x40, "u.md", "é"}),
		encodeScript(fuzzOp{0, 2, "é", ""}, fuzzOp{2, 2, "a\x00b", "x"}, fuzzOp{4, 2, "", "[x"}, fuzzOp{5, 2, "d/" + strings.Repeat("s", 81), "x"}),
	}
}

// FuzzToolCalls runs sequences of VFS tool calls with model-controlled
// arguments against a session and checks, after every call, that nothing
// panicked or hung, that a failure is a clean failed result (no events,
// words for the model), that the reducers accept what the tools return,
// and that the file table stays valid, matches its io/fs view and
// survives a snapshot JSON round trip.
func FuzzToolCalls(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	set, err := vfs.Tools(vfs.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, script []byte) { runScript(t, set, script) })
}

// runScript runs the calls of script on a new session and checks them.
func runScript(t *testing.T, set tools.Toolset, script []byte) {
	s, err := session.New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := set.Install(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	for i, op := range decodeScript(script) {
		name, args := argsOf(op)
		out := callWithin(t, set, s, name, args)
		if errors.Is(out.Err, context.DeadlineExceeded) {
			continue // a costly search, stopped in time
		}
		if !out.Success {
			if len(out.Events) > 0 || out.Text == "" {
				t.Fatalf("op %d %s %.200s: failed with events %v or no text %q", i, name, args, out.Events, out.Text)
			}
			if op.tool%8 != 7 && utf8.RuneCountInString(out.Text) > 1000 {
				t.Fatalf("op %d %s: a failure of %d characters: %.300s", i, name, utf8.RuneCountInString(out.Text), out.Text)
			}
			checkArgumentFailure(t, name, args, out)
			continue
		}
		if err := s.Dispatch(context.Background(), out.Events...); err != nil {
			t.Fatalf("op %d %s %.200s: the reducers refused what the tool returned: %v", i, name, args, err)
		}
	}
	checkTable(t, s)
}

// checkArgumentFailure checks that a failure about the arguments' shape —
// a bad path or glob among them — reads in the one format of invalid
// arguments, and that no other failure names an invalid path.
func checkArgumentFailure(t *testing.T, name, args string, out tools.Outcome) {
	t.Helper()
	var ve *tools.ValidationError
	if errors.As(out.Err, &ve) {
		if prefix := "Tool validation failed: " + name + ": "; !strings.HasPrefix(out.Text, prefix) {
			t.Fatalf("%s %.200s: a validation failure reads %.300q", name, args, out.Text)
		}
		return
	}
	if strings.Contains(out.Text, "invalid path") || strings.Contains(out.Text, "invalid glob pattern") {
		t.Fatalf("%s %.200s: an argument failure outside the validation format: %.300q", name, args, out.Text)
	}
}

// callWithin calls a tool with a deadline of 100 ms (so that costly
// searches do not slow the fuzzing down) and fails the test if the call
// does not return within 5 s of it.
func callWithin(t *testing.T, set tools.Toolset, s *session.Session, name, args string) tools.Outcome {
	t.Helper()
	tool, ok := set.Lookup(name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan tools.Outcome, 1)
	go func() { done <- tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(args)) }()
	select {
	case out := <-done:
		return out
	case <-time.After(5100 * time.Millisecond):
		t.Fatalf("%s %.200s did not return within 5 s of its deadline", name, args)
		return tools.Outcome{}
	}
}

// checkTable checks the session's file table: canonical paths, contents a
// write would accept, no file where a directory is; the io/fs view holds
// the same files and passes fstest.TestFS (when it can check them);
// snapshot JSON restores it.
func checkTable(t *testing.T, s *session.Session) {
	t.Helper()
	table := vfs.Files(s)
	var names []string
	for f := range table.All() {
		if p, err := vfs.NormalizePath(f.Path); err != nil || p != f.Path {
			t.Fatalf("path %q is not canonical (%v)", f.Path, err)
		}
		if !utf8.ValidString(f.Content) || utf8.RuneCountInString(f.Content) > vfs.MaxContentChars || f.Version < 1 {
			t.Fatalf("file %s: bad content or version %d", f.Path, f.Version)
		}
		if table.IsDir(f.Path) {
			t.Fatalf("%s is a file and a directory", f.Path)
		}
		names = append(names, f.Path)
	}
	fsys := vfs.FS(s)
	var walked []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			walked = append(walked, p)
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			if f, _ := table.Get(p); f.Content != string(data) {
				return errors.New(p + ": the view's content differs")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(walked, "\n") != strings.Join(names, "\n") {
		t.Fatalf("the table holds %q, the fs view %q", names, walked)
	}
	// fs.Sub's Glob, which TestFS exercises, reads a directory name holding
	// glob metacharacters as a pattern, for any fs.FS: TestFS cannot check
	// such trees.
	if !strings.ContainsAny(strings.Join(names, ""), `*?[\`) {
		if err := fstest.TestFS(fsys, names...); err != nil {
			t.Fatal(err)
		}
	}
	data, err := session.MarshalSnapshot(s.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := session.UnmarshalSnapshot(data, nil)
	if err != nil {
		t.Fatalf("a table the tools built does not restore: %v", err)
	}
	if !vfs.FilesOf(snap).Equal(table) {
		t.Fatal("the restored table differs")
	}
}
