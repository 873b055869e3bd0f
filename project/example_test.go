package project_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/project"
)

// A project's memory: CLAUDE.md and the file it imports. A program gives
// it to offshoot.Options.Memory, and shows its user what was read.
func ExampleLoadMemory() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("Run the tests with make test.\nStyle: @docs/style.md"), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "docs", "style.md"), []byte("Tabs, not spaces."), 0o644)

	mem := project.LoadMemory(project.Options{Dir: dir})
	for _, f := range mem.Files {
		fmt.Printf("%s: %s\n", f.Name, f.Kind)
	}
	// Output:
	// CLAUDE.md: project instructions, checked into the codebase
	// docs/style.md: imported by CLAUDE.md
}

// A project's skills: a program gives them to offshoot.Options.Skills,
// whose Skill tool lists them for the model.
func ExampleLoadSkills() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	_ = os.MkdirAll(filepath.Join(dir, ".claude", "skills", "changelog"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".claude", "skills", "changelog", "SKILL.md"),
		[]byte("---\nname: changelog\ndescription: Write the changelog entry of a change.\n---\nOne line per change, in plain words."), 0o644)

	skills := project.LoadSkills(project.Options{Dir: dir})
	for _, k := range skills.All {
		fmt.Printf("%s: %s\n", k.Name, k.Description)
	}
	// Output:
	// changelog: Write the changelog entry of a change.
}

// A slash command and its arguments: a program runs it with
// offshoot's Client.QueryCommand.
func ExampleLoadCommands() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	_ = os.MkdirAll(filepath.Join(dir, ".claude", "commands"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".claude", "commands", "fix-issue.md"),
		[]byte("---\ndescription: Fix an issue\nallowed-tools: Read, Edit\n---\nFix issue #$1 with priority $2."), 0o644)

	commands := project.LoadCommands(project.Options{Dir: dir})
	name, args, _ := project.ParseCommandLine(`/fix-issue 123 "very high"`)
	cmd, _ := commands.Find(name)
	fmt.Println(cmd.Description, cmd.AllowedTools)
	fmt.Println(cmd.Expand(args))
	// Output:
	// Fix an issue [Read Edit]
	// Fix issue #123 with priority very high.
}

// A project's settings: its deny rules hold at once; its allow rules only
// once the user approved them (a program records Hash with the approval
// and asks again when it changes). A program gives the result to
// offshoot.Options.Permissions, as a permission.Policy's Settings.
func ExampleLoadSettings() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	_ = os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".claude", "settings.json"),
		[]byte(`{"permissions": {"allow": ["Bash(make:*)"], "deny": ["Read(./.env)"]}}`), 0o644)

	s := project.LoadSettings(project.Options{Dir: dir})
	for _, approved := range []bool{false, true} {
		p := s.Permissions(approved)
		fmt.Printf("approved %v: allow %v, deny %v\n", approved, p.Allow, p.Deny)
	}
	// Output:
	// approved false: allow [], deny [Read(./.env)]
	// approved true: allow [Bash(make:*)], deny [Read(./.env)]
}
