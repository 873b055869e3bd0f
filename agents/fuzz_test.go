package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/tools"
)

// fuzzParent is the caller's toolset the fuzzed definitions resolve
// against.
func fuzzParent(t testing.TB) tools.Toolset {
	var ts []tools.Tool
	for _, n := range []string{"ls", "read_file", "write_file", "grep", "planning_read_plan", "Task", "mcp__github__list_prs"} {
		tool, err := tools.New(n, "A tool.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[struct{}], error) {
			return tools.OK("done", struct{}{}), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tool)
	}
	set, err := tools.NewToolset(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// checkDraft checks what must hold of any file, however malformed: every
// diagnostic points into the file, and a definition without errors is
// usable — a valid name, a description, a prompt, tool entries that
// resolve or fail with a *MissingToolsError, and, when Format accepts it,
// a file that reads back as the same definition.
func checkDraft(t *testing.T, d *draft, ok bool, lines int, parent tools.Toolset) {
	for _, diag := range append(d.errs, d.warns...) {
		if diag.Line < 0 || diag.Line > lines+1 {
			t.Fatalf("diagnostic %q points at line %d of %d", diag.Error(), diag.Line, lines)
		}
		if diag.Message == "" {
			t.Fatalf("diagnostic without a message: %#v", diag)
		}
	}
	if ok != (len(d.errs) == 0) {
		t.Fatalf("finish said %v with errors %v", ok, d.errs)
	}
	if !ok {
		return
	}
	def := d.def
	if !nameRE.MatchString(def.Name) {
		t.Fatalf("loaded a definition named %q", def.Name)
	}
	if n := utf8.RuneCountInString(def.Description); strings.TrimSpace(def.Description) == "" || n > maxDescription {
		t.Fatalf("loaded a description of %d characters: %q", n, def.Description)
	}
	if strings.TrimSpace(def.Prompt) == "" {
		t.Fatal("loaded a definition without a prompt")
	}
	for _, e := range append(append([]string{}, def.Tools...), def.DisallowedTools...) {
		if e == "" {
			t.Fatalf("empty tools entry in %q / %q", def.Tools, def.DisallowedTools)
		}
	}
	for _, atLimit := range []bool{false, true} {
		if _, err := def.ResolveTools(parent, atLimit); err != nil {
			var missing *MissingToolsError
			if !errors.As(err, &missing) {
				t.Fatalf("ResolveTools: %v", err)
			}
		}
	}
	out, err := Format(def)
	if err != nil {
		return
	}
	back, skip := parseMarkdown("b.md", out, Project)
	if skip != nil {
		t.Fatalf("Format wrote a file without frontmatter:\n%s", out)
	}
	if !newEnv(Options{}).finish(back, fromMarkdown) {
		t.Fatalf("Format wrote a file that does not load (%v):\n%s", back.errs, out)
	}
	got := back.def
	if got.Name != def.Name || got.Description != def.Description || got.Prompt != def.Prompt || got.Model != def.Model ||
		strings.Join(got.Tools, "\x00") != strings.Join(def.Tools, "\x00") || (got.Tools == nil) != (def.Tools == nil) ||
		strings.Join(got.DisallowedTools, "\x00") != strings.Join(def.DisallowedTools, "\x00") || got.MaxTurns != def.MaxTurns {
		t.Fatalf("Format does not round-trip:\n%#v\n%s\n%#v", def, out, got)
	}
}

// FuzzParseMarkdown feeds arbitrary files to the Markdown loader: it never
// panics, and whatever it loads is usable (see checkDraft).
func FuzzParseMarkdown(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "claude-agents", "*.md"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"---\nname: a\ndescription: A.\n---\nx",
		"---\nname: a\ndescription: Use when: x\nExamples:\n<example>\nuser: y\n</example>\ntools: Read\n---\nx",
		"---\nname: &n a\ndescription: *n\ntools: [*n, *n]\n---\nx",
		"---\nname: !!binary YQ==\n---\n",
		"---\n[a, b]\n---\nx",
		"---\nname: a\ndescription: A.\nmcpServers:\n  - s: {command: x, args: [1, 2]}\n---\nx",
		"---\nname: a\ndescription: A.\ntools: Bash(a:*, b:(c)), Read(x), mcp__s__t, [\n---\nx",
		"\uFEFF\r\n  ---\r\nname: a\r\ndescription: A\\nB\r\n-----",
	} {
		f.Add([]byte(s))
	}
	parent := fuzzParent(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, skip := parseMarkdown("a.md", data, Project)
		if skip != nil {
			if d != nil {
				t.Fatal("a skipped file gave a definition")
			}
			return
		}
		text, _ := normalize(data)
		ok := newEnv(Options{}).finish(d, fromMarkdown)
		checkDraft(t, d, ok, strings.Count(text, "\n")+1, parent)
	})
}

// FuzzConfig feeds arbitrary config.json files (and --agents values) to
// the JSON loader, with the same checks.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		`{"agents": {"a": {"description": "A.", "prompt": "x", "tools": ["Read", "Grep"], "model": "haiku"}}}`,
		`{"models": {"main": {}}, "agents": {"a": {"description": "A.", "prompt": "x", "tools": "Read, Bash(git:*)", "maxTurns": 3}}, "mcpServers": {"s": {}}}`,
		`{"agents": {"a": {"description": 1, "prompt": [], "background": "yes", "mcpServers": ["s", {"t": {"command": "x"}}]}}}`,
		`{"agents": {"a": 1, "b": null, "c": {"description": "C.", "prompt": "x", "tools": []}}}`,
		`{"agents": []}`, `[]`, `{`, `{"agents": {"a": {"description": "\u00e9\/\n", "prompt": "x"}}} x`,
	} {
		f.Add([]byte(s))
	}
	parent := fuzzParent(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, diag := parseConfig("config.json", data)
		if diag != nil {
			if c.agents != nil {
				t.Fatal("a rejected config gave agents")
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, d := range agentDrafts("config.json", c.agents, User) {
			ok := newEnv(Options{MCPServers: c.servers}).finish(d, fromJSON)
			checkDraft(t, d, ok, lines, parent)
		}
	})
}

// FuzzFormat feeds arbitrary definitions to Format: whatever it accepts
// loads back as the same definition, without errors.
func FuzzFormat(f *testing.F) {
	f.Add("code-reviewer", "Reviews code: quality, security.", "You review code.", "read_file", "mcp__github__*", "light", "postmortem", "Stay calm.", 20)
	f.Add("a", `Matches \n "and" 'quotes' #`, "---\nnot a fence\n---", "Read", "write_file", "inherit", "", "", 0)
	f.Add("a", "Does A.", "x", "read\xff", "", "", "", "", 1)
	f.Add("a", "Vérifie 日本語", "✅", "planning_*", "", "claude-sonnet-4-20250514", "s", "\xff", 10000)
	f.Fuzz(func(t *testing.T, name, desc, prompt, tool, denied, mdl, skill, reminder string, maxTurns int) {
		def := Definition{Name: name, Description: desc, Prompt: prompt, Model: mdl, MaxTurns: maxTurns, CriticalSystemReminder: reminder}
		if tool != "" {
			def.Tools = []string{tool}
		}
		if denied != "" {
			def.DisallowedTools = []string{denied}
		}
		if skill != "" {
			def.Skills = []string{skill}
		}
		out, err := Format(def)
		if err != nil {
			var diag *Diagnostic
			if !errors.As(err, &diag) && !strings.HasPrefix(err.Error(), "agents: encode") {
				t.Fatalf("Format failed with %T: %v", err, err)
			}
			return
		}
		back, skip := parseMarkdown("b.md", out, Project)
		if skip != nil {
			t.Fatalf("Format wrote a file without frontmatter:\n%s", out)
		}
		if !newEnv(Options{}).finish(back, fromMarkdown) {
			t.Fatalf("Format wrote a file that does not load (%v):\n%s", back.errs, out)
		}
		got := back.def
		if got.Name != def.Name || got.Description != strings.TrimSpace(def.Description) || got.Prompt != strings.TrimSpace(lineEnds(def.Prompt)) ||
			got.MaxTurns != def.MaxTurns || got.CriticalSystemReminder != strings.TrimSpace(lineEnds(def.CriticalSystemReminder)) ||
			strings.Join(got.Skills, "\x00") != strings.Join(def.Skills, "\x00") {
			t.Fatalf("Format does not round-trip:\n%#v\n%s\n%#v", def, out, got)
		}
	})
}
