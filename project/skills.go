package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/internal/frontmatter"
	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// The bounds on skills.
const (
	maxSkillFile        = 1 << 20  // a SKILL.md
	maxSkillFront       = 64 << 10 // its frontmatter
	maxDescription      = 1024     // a description, in characters
	maxSkillFiles       = 1000     // entries walked in a skill's folder
	maxSkillFolderBytes = 4 << 20  // what a skill's folder may hold to be mounted
	maxSkills           = 200      // skills read from one folder
)

// skillNameRE is the shape of a skill's name in the Agent Skills format:
// lower-case letters, digits and hyphens, at most 64 characters.
var skillNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// Skill is one skill in the Agent Skills format: a folder holding
// SKILL.md (frontmatter with name and description, then instructions) and
// any other files its instructions point to.
type Skill struct {
	// Name identifies the skill: lower-case letters, digits and hyphens,
	// at most 64 characters; its folder's name when the file gives none.
	Name string
	// Description says what the skill does and when to use it; the model
	// reads it in the Skill tool's description.
	Description string
	// Body is the instructions, SKILL.md after its frontmatter.
	Body string
	// AllowedTools are the tools the skill may use while it is active
	// (allowed-tools), Claude Code's names or offshoot's; nil when the
	// skill says nothing.
	AllowedTools []string
	// Hidden is set by disable-model-invocation: the model is not offered
	// the skill; an agent's skills list may still preload it.
	Hidden bool
	// Dir is the skill's folder, absolute; Path its SKILL.md.
	Dir, Path string
	// Source is "project" or "user".
	Source string
	// Mounted is false when the folder holds more than the model may be
	// given (4 MiB, 1,000 entries): the Skill tool then returns the
	// instructions alone.
	Mounted bool
}

// Skills are the skills of a project and of its user. LoadSkills makes
// them.
type Skills struct {
	// All are the skills, sorted by name.
	All []Skill
	// LeftOut are skill folders not loaded, and why.
	LeftOut []LeftOut
	// Warnings are problems of skills that loaded anyway.
	Warnings []LeftOut
}

// Find returns the skill of that name.
func (s *Skills) Find(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	i := slices.IndexFunc(s.All, func(k Skill) bool { return k.Name == name })
	if i < 0 {
		return Skill{}, false
	}
	return s.All[i], true
}

// LoadSkills reads the skills of the user (~/.claude/skills/NAME/SKILL.md,
// ~/.offshoot/skills) and of the project (its repository root's
// .claude/skills and .offshoot/skills; see Options.Dir). As in Claude
// Code, the user's skill wins over the project's of the same name;
// .offshoot/skills wins over .claude/skills at the same level.
//
// Files are read as Claude Code reads them, leniently: a missing name is
// the folder's; a name that is not lower-case letters, digits and hyphens
// (at most 64), or that differs from the folder's, is a warning and the
// folder's name is used when it is valid; a description longer than 1,024
// characters is cut, a missing one taken from the first line of the
// instructions, with a warning. A folder without SKILL.md is no skill. A
// SKILL.md that is not a regular file, or over 1 MiB, is left out.
func LoadSkills(opts Options) *Skills {
	s := &Skills{}
	s.All = layered(opts, "skills", s.scan,
		func(k Skill) string { return k.Name }, func(k Skill) string { return k.Path }, &s.LeftOut,
		func(name, winner string) string {
			return fmt.Sprintf("skill %q is defined by %s too, which wins", name, winner)
		})
	return s
}

// scan reads the skills of one skills folder, in sorted order.
func (s *Skills) scan(dir, source string) []Skill {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.LeftOut = append(s.LeftOut, LeftOut{Path: dir, Reason: fmt.Sprintf("the skills folder cannot be read (%v)", err)})
		}
		return nil
	}
	var out []Skill
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if len(out) == maxSkills {
			s.LeftOut = append(s.LeftOut, LeftOut{Path: dir, Reason: fmt.Sprintf("more than %d skills: the others are left out", maxSkills)})
			break
		}
		folder := filepath.Join(dir, e.Name())
		if info, err := os.Stat(folder); err != nil || !info.IsDir() {
			continue
		}
		path := filepath.Join(folder, "SKILL.md")
		data, err := regfile.Read(path, maxSkillFile)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // not a skill
		case err != nil:
			s.LeftOut = append(s.LeftOut, LeftOut{Path: path, Reason: fmt.Sprintf("cannot be read: %v", err)})
			continue
		}
		k, ok := s.parse(path, e.Name(), data)
		if !ok {
			continue
		}
		k.Dir, k.Source = folder, source
		k.Mounted = s.mountable(folder)
		out = append(out, k)
	}
	return out
}

// warn records a warning about the skill file path.
func (s *Skills) warn(path string, line int, format string, args ...any) {
	p := path
	if line > 0 {
		p = fmt.Sprintf("%s:%d", path, line)
	}
	s.Warnings = append(s.Warnings, LeftOut{Path: p, Reason: fmt.Sprintf(format, args...)})
}

// skillKeys are the frontmatter keys read; others (license, metadata,
// compatibility, …) are kept out of the way.
var skillKeys = map[string]bool{"name": true, "description": true, "allowed-tools": true, "disable-model-invocation": true}

// parse reads a SKILL.md; folder is its folder's name.
func (s *Skills) parse(path, folder string, data []byte) (Skill, bool) {
	k := Skill{Path: path}
	text, bad := frontmatter.Normalize(data)
	if bad {
		s.warn(path, 0, "the file is not valid UTF-8; its invalid bytes were replaced")
	}
	doc, problem, line, _ := frontmatter.Split(text, maxSkillFront)
	switch problem {
	case frontmatter.None:
		m, strictErr, _ := frontmatter.Parse(doc.Front, doc.FrontLine, func(key string) bool { return skillKeys[key] })
		if strictErr != nil {
			l, msg := frontmatter.YAMLProblem(strictErr, doc.FrontLine)
			s.warn(path, l, "the frontmatter is not valid YAML (%s); it was read line by line instead. To make it valid, quote values that contain \": \"", msg)
		}
		s.fields(&k, m)
		k.Body = doc.Body
	case frontmatter.Missing:
		s.warn(path, 0, "no frontmatter: the skill is named after its folder and described by its first line; start the file with ---, name:, description:, ---")
		k.Body = strings.TrimSpace(text)
	default:
		s.LeftOut = append(s.LeftOut, LeftOut{Path: fmt.Sprintf("%s:%d", path, line), Reason: "the frontmatter cannot be read: it must open on the first line with --- and close with ---"})
		return k, false
	}
	switch {
	case k.Name == "":
		k.Name = folder
	case !skillNameRE.MatchString(k.Name):
		s.warn(path, 0, "the name %q is not lower-case letters, digits and hyphens (at most 64); the folder's name %q is used", clip(k.Name), folder)
		k.Name = folder
	case k.Name != folder:
		s.warn(path, 0, "the name %q differs from the folder's %q; the Agent Skills format wants them equal. The skill is called %q", k.Name, folder, k.Name)
	}
	if !skillNameRE.MatchString(k.Name) {
		s.LeftOut = append(s.LeftOut, LeftOut{Path: path, Reason: fmt.Sprintf("no usable name: the folder's name %q is not lower-case letters, digits and hyphens (at most 64); rename the folder", clip(folder))})
		return k, false
	}
	if k.Description == "" {
		for _, l := range strings.Split(k.Body, "\n") {
			if t := strings.TrimSpace(strings.TrimLeft(l, "#")); t != "" {
				k.Description = t
				break
			}
		}
		if problem == frontmatter.None {
			s.warn(path, 0, "no description: the model picks a skill by its description; add description: saying what the skill does and when to use it")
		}
	}
	if n := utf8.RuneCountInString(k.Description); n > maxDescription {
		s.warn(path, 0, "the description is %d characters long; the first %d are used", n, maxDescription)
		k.Description = string([]rune(k.Description)[:maxDescription])
	}
	if k.Description == "" {
		s.LeftOut = append(s.LeftOut, LeftOut{Path: path, Reason: "no description and no instructions"})
		return k, false
	}
	return k, true
}

// fields reads the frontmatter's keys into k.
func (s *Skills) fields(k *Skill, m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := m.Content[i], m.Content[i+1]
		switch key.Value {
		case "name":
			k.Name = strings.TrimSpace(scalar(v))
		case "description":
			k.Description = strings.TrimSpace(scalar(v))
		case "allowed-tools":
			if v.Kind == yaml.SequenceNode {
				k.AllowedTools = []string{}
				for _, e := range v.Content {
					k.AllowedTools = append(k.AllowedTools, frontmatter.SplitToolList(scalar(e))...)
				}
			} else if t := scalar(v); strings.TrimSpace(t) != "" {
				k.AllowedTools = frontmatter.SplitToolList(t)
			}
		case "disable-model-invocation":
			k.Hidden = scalar(v) == "true"
		}
	}
}

// scalar returns the text of a scalar node, "" for anything else.
func scalar(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// mountable reports whether a skill's folder is small enough to give the
// model: at most maxSkillFiles entries and maxSkillFolderBytes of regular
// files, walked without following links.
func (s *Skills) mountable(dir string) bool {
	var n int
	var size int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxSkillFiles {
			return fs.SkipAll
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	if err != nil || n > maxSkillFiles || size > maxSkillFolderBytes {
		s.warn(filepath.Join(dir, "SKILL.md"), 0, "the skill's folder holds more than %d entries or %s: only its instructions are given, not its other files", maxSkillFiles, regfile.Size(maxSkillFolderBytes))
		return false
	}
	return true
}

// clip cuts s to 80 characters for a message.
func clip(s string) string {
	if utf8.RuneCountInString(s) > 80 {
		return string([]rune(s)[:80]) + "…"
	}
	return s
}
