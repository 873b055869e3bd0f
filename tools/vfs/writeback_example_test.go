package vfs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A session mounts a directory, edits a file and writes a new one; the
// write-back shows the changes as a diff and writes them to the directory.
func ExamplePlanWriteBack() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Project\nHello.\n"), 0o644)

	set, err := vfs.Tools(vfs.Options{Mounts: []vfs.Mount{{HostPath: dir}}, AllowedRoots: []string{dir}})
	if err != nil {
		panic(err)
	}
	s, _ := session.New()
	defer s.Close()
	ctx := context.Background()
	_ = set.Install(ctx, s) // seeds the session with the mounted files, and records them
	// What the agents' tools would do: edit a file, create another.
	_ = s.Dispatch(ctx, vfs.FileWritten{Path: "README.md", Content: "# Project\nHello, world.\n"},
		vfs.FileWritten{Path: "NOTES.md", Content: "Say hello to the world.\n"})

	w, err := vfs.PlanWriteBack(s.Snapshot(), dir)
	if err != nil {
		panic(err)
	}
	fmt.Print(w.Diff())
	fmt.Println(w.Summary())
	if err := w.Apply(); err != nil {
		fmt.Println(err) // names the files left: changed on disk since they were mounted, excluded, …
	}
	data, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	fmt.Printf("%q\n", data)
	// Output:
	// --- /dev/null
	// +++ b/NOTES.md
	// @@ -0,0 +1 @@
	// +Say hello to the world.
	// --- a/README.md
	// +++ b/README.md
	// @@ -1,2 +1,2 @@
	//  # Project
	// -Hello.
	// +Hello, world.
	// 1 created, 1 edited, 0 deleted
	// "# Project\nHello, world.\n"
}
