package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad100 loads a project whose .claude/agents holds 100 agent
// files made from the corpus (so a sixth of them need tolerant reading),
// plus the built-ins. The requirement is under 50 ms.
func BenchmarkLoad100(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("testdata", "claude-agents", "*.md"))
	if err != nil || len(files) == 0 {
		b.Fatal("no corpus", err)
	}
	var texts []string
	for _, f := range files {
		if filepath.Base(f) == "README.md" || filepath.Base(f) == "reviewer-v2.md" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "---") {
			continue // a file Claude Code would skip: its frontmatter is not on the first line
		}
		texts = append(texts, string(data))
	}
	project := b.TempDir()
	dir := filepath.Join(project, ".claude", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		text := texts[i%len(texts)]
		// Give each copy a name of its own.
		start := strings.Index(text, "name:")
		end := start + strings.IndexAny(text[start:], "\r\n")
		text = text[:start] + fmt.Sprintf("name: agent-%03d", i) + text[end:]
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("agent-%03d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r := Load(Options{ProjectDir: project})
	if len(r.Errors()) > 0 || len(r.All()) != 104 {
		b.Fatalf("%d agents, errors %v", len(r.All()), r.Errors())
	}
	b.ReportAllocs()
	for b.Loop() {
		Load(Options{ProjectDir: project})
	}
}

// BenchmarkParseHostile reads files of hostile shapes, with frontmatter of
// the largest size read (64 KiB; a longer one is refused); each must take
// time linear in its size.
func BenchmarkParseHostile(b *testing.B) {
	const size = maxFrontmatter - 100
	fill := func(line string) string { return strings.Repeat(line, size/len(line)) }
	cases := map[string]string{
		"many keys":            "---\n" + fill("name: a\n") + "---\nx",
		"many unknown keys":    "---\nname: a\ndescription: Use when: x\n" + fill("k: v\n") + "---\nx",
		"long lenient value":   "---\nname: a\ndescription: Use when: x\n" + fill("Context: more text: here\n") + "---\nx",
		"open examples":        "---\nname: a\ndescription: Use when: x\n" + fill("<example> user: y\n") + "---\nx",
		"ignored lines":        "---\n" + fill("not a key line\n") + "name: a\n---\nx",
		"long tools string":    "---\nname: a\ndescription: A.\ntools: " + fill("Read, ") + "\n---\nx",
		"many tool entries":    "---\nname: a\ndescription: A.\ntools: " + strings.Repeat("Grpe, ", 900) + "\n---\nx",
		"deep flow nesting":    "---\nname: a\ntools: " + strings.Repeat("[", size/2) + "\n---\nx",
		"many anchors":         "---\nname: &a a\n" + fill("x: *a\n") + "---\nx",
		"unclosed frontmatter": "---\n" + fill("name: a\n"),
	}
	for name, text := range cases {
		b.Run(name, func(b *testing.B) {
			data := []byte(text)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				d, skip := parseMarkdown("a.md", data, Project)
				if skip == nil {
					newEnv(Options{}).finish(d, fromMarkdown)
				}
			}
		})
	}
}
