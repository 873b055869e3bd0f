package vfs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// exampleSession returns a session whose bus clock is fixed, so that the
// times files record are known.
func exampleSession() *session.Session {
	at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	s, err := session.New(session.WithBus(bus.New(bus.WithClock(func() time.Time { return at }))))
	if err != nil {
		panic(err)
	}
	return s
}

// run calls a tool as the runner does: through the type-erased Call with
// the model's JSON, then dispatching the events of the outcome.
func run(s *session.Session, set tools.Toolset, name, args string) tools.Outcome {
	ctx := context.Background()
	tool, _ := set.Lookup(name)
	out := tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(args))
	if err := s.Dispatch(ctx, out.Events...); err != nil {
		fmt.Println("dispatch:", err)
	}
	return out
}

// The tools keep no state: each call reads the session's files and returns
// events that the session's reducers apply.
func Example() {
	set, err := vfs.Tools(vfs.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := exampleSession()
	defer s.Close()
	if err := set.Install(context.Background(), s); err != nil { // the runner does this before the first model call
		fmt.Println(err)
		return
	}
	for _, call := range []struct{ tool, args string }{
		{"write_file", `{"file_path": "/notes/todo.md", "content": "buy milk\ncall Bob\n"}`},
		{"write_file", `{"file_path": "notes/todo.md", "content": "again"}`},
		{"edit_file", `{"file_path": "notes/todo.md", "old_string": "Bob", "new_string": "Alice"}`},
		{"read_file", `{"file_path": "notes/todo.md", "offset": 1}`},
		{"ls", `{}`},
		{"grep", `{"pattern": "milk|Alice"}`},
	} {
		out := run(s, set, call.tool, call.args)
		fmt.Printf("%s %v: %s\n", call.tool, out.Success, out.Text)
	}
	f, _ := vfs.Files(s).Get("notes/todo.md")
	fmt.Printf("version %d, updated %s\n", f.Version, f.UpdatedAt.Format(time.RFC3339))
	// Output:
	// write_file true: created notes/todo.md (18 bytes, version 1)
	//
	// {"path":"notes/todo.md","version":1,"size_bytes":18}
	// write_file false: write notes/todo.md: file already exists; use edit_file to change it, or rm it first to start over
	// edit_file true: edited notes/todo.md: 1 replacement, now version 2
	//
	// {"path":"notes/todo.md","version":2,"size_bytes":20,"replacements":1}
	// read_file true: notes/todo.md: lines 2-2 of 2
	//
	// {"path":"notes/todo.md","content":"   2 | call Alice","offset":1,"limit":2000,"total_lines":2}
	// ls true: /: 1 entry
	//
	// {"path":"","entries":[{"path":"notes","kind":"directory","size_bytes":20,"updated_at":"2026-11-22T09:30:00Z"}]}
	// grep true: 2 matching lines in 1 file
	//
	// {"matches":[{"path":"notes/todo.md","line_number":1,"line":"buy milk"},{"path":"notes/todo.md","line_number":2,"line":"call Alice"}]}
	// version 2, updated 2026-11-22T09:30:00Z
}

// A prompt section brings the tools and a short guide; it holds no
// session, so one prompt serves every session it is evaluated against.
func ExampleSection() {
	p, err := prompt.New("agents", "writer",
		prompt.Markdown[prompt.NoParams]("Role", "You write release notes."),
		vfs.Section(vfs.Options{}),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := p.Render()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Text)
	fmt.Println(r.Tools.Names())
	// Output:
	// ## 1. Role
	//
	// You write release notes.
	//
	// ## 2. Virtual Filesystem
	//
	// You have a virtual filesystem of text files that lives in this session. It is not the host's disk: what you write stays here unless the application writes it back.
	//
	// - Paths start at the root, like docs/notes.md: ASCII, no "." or ".." parts, at most 16 levels.
	// - Look around with ls, find files with glob (**/*.md matches at any depth) and search lines with grep (Go regular expressions).
	// - read_file shows numbered lines ("   3 | text"); page through long files with offset and limit.
	// - write_file creates a new file of up to 48,000 characters. Change an existing file with edit_file: old_string must match exactly once unless you set replace_all.
	// - rm removes a file, or a directory with everything below it.
	// [ls read_file write_file edit_file glob grep rm]
}

// Host directories are mounted read-only from inside allow-listed roots;
// their files seed every session the tools are installed on that has no
// files yet.
func ExampleMount() {
	root, _ := os.MkdirTemp("", "vfs-example")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "docs", "drafts"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "docs", "guide.md"), []byte("# Guide\n"), 0o644)
	_ = os.WriteFile(filepath.Join(root, "docs", "drafts", "idea.md"), []byte("maybe\n"), 0o644)
	_ = os.WriteFile(filepath.Join(root, "docs", "logo.png"), []byte{0x89, 'P', 'N', 'G'}, 0o644)

	set, err := vfs.Tools(vfs.Options{
		AllowedRoots: []string{root},
		Mounts: []vfs.Mount{{
			HostPath:  filepath.Join(root, "docs"),
			MountPath: "host/docs",
			Include:   []string{"**/*.md"},
			Exclude:   []string{"drafts"},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := exampleSession()
	defer s.Close()
	_ = set.Install(context.Background(), s)
	for f := range vfs.Files(s).All() {
		fmt.Printf("%s %q\n", f.Path, f.Content)
	}

	_, err = vfs.Tools(vfs.Options{AllowedRoots: []string{filepath.Join(root, "docs")}, Mounts: []vfs.Mount{{HostPath: root}}})
	fmt.Println(err != nil)
	// Output:
	// host/docs/guide.md "# Guide\n"
	// true
}

// FS gives an io/fs view of the files, for code that works on fs.FS.
func ExampleFS() {
	set, _ := vfs.Tools(vfs.Options{})
	s := exampleSession()
	defer s.Close()
	_ = set.Install(context.Background(), s)
	run(s, set, "write_file", `{"file_path": "b/one.txt", "content": "1"}`)
	run(s, set, "write_file", `{"file_path": "a.txt", "content": "22"}`)
	_ = fs.WalkDir(vfs.FS(s), ".", func(p string, d fs.DirEntry, err error) error {
		info, _ := d.Info()
		fmt.Println(p, d.IsDir(), info.Size())
		return err
	})
	// Output:
	// . true 0
	// a.txt false 2
	// b true 0
	// b/one.txt false 1
}

// Export writes a snapshot's files to a host directory, never outside it.
func ExampleExport() {
	set, _ := vfs.Tools(vfs.Options{})
	s := exampleSession()
	defer s.Close()
	_ = set.Install(context.Background(), s)
	run(s, set, "write_file", `{"file_path": "report/summary.md", "content": "All good.\n"}`)

	dir, _ := os.MkdirTemp("", "vfs-export")
	defer os.RemoveAll(dir)
	if err := vfs.Export(s.Snapshot(), dir); err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(filepath.Join(dir, "report", "summary.md"))
	fmt.Print(string(data))
	// Output:
	// All good.
}
