package shell_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A command runs on a copy of the session's files, and what it changes
// comes back as the session's file events. A program adds the tool to an
// agent's tools itself (offshoot.Options.Tools, say); here it is called
// as the runner calls it.
func Example() {
	tool, err := shell.New(shell.Options{}) // inside bubblewrap where it works
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tool.Close() // removes the scratch directories

	s, _ := session.New()
	defer s.Close()
	ctx := context.Background()
	set, _ := tools.NewToolset(tool)
	_ = set.Install(ctx, s) // the runner does this before the first model call
	_ = s.Dispatch(ctx, vfs.FileWritten{Path: "notes.txt", Content: "draft\n", Version: 1})

	args, _ := json.Marshal(map[string]any{"command": "sed -i s/draft/final/ notes.txt && wc -l < notes.txt"})
	out := tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, args)
	fmt.Print(out.Text)                // the output ends with its newline
	_ = s.Dispatch(ctx, out.Events...) // the runner does this too
	f, _ := vfs.Files(s).Get("notes.txt")
	fmt.Printf("notes.txt, version %d: %q\n", f.Version, f.Content)
	// Output:
	// Exit code 0.
	// Files changed: edited notes.txt.
	// Output:
	// 1
	// notes.txt, version 2: "final\n"
}
