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

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/internal/frontmatter"
	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// maxCommands is the most commands read from one folder.
const maxCommands = 500

// commandNameRE is the shape of a command's name: its file's name without
// .md.
var commandNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Command is a slash command: a prompt template the user runs by name
// (/NAME ARGS), from a Markdown file with optional frontmatter, as Claude
// Code's .claude/commands/NAME.md.
type Command struct {
	// Name is the file's name without .md.
	Name string
	// Description says what the command does (/help shows it); the first
	// line of the body when the file gives none.
	Description string
	// ArgumentHint shows what arguments it takes (argument-hint).
	ArgumentHint string
	// Body is the template: $ARGUMENTS stands for the arguments, $1, $2, …
	// for each of them.
	Body string
	// AllowedTools, when not nil, are the only tools the turn may use
	// (allowed-tools): Claude Code's names or offshoot's.
	AllowedTools []string
	// Model, when set, is the model the turn runs on: a configured name,
	// an alias such as haiku, or a Claude model id (mapped by family).
	Model string
	// Path is the file; Source "project" or "user".
	Path, Source string
}

// Commands are the slash commands of a project and of its user.
// LoadCommands makes them.
type Commands struct {
	// All are the commands, sorted by name.
	All []Command
	// LeftOut are the files not loaded, and why.
	LeftOut []LeftOut
	// Warnings are problems of commands that loaded anyway.
	Warnings []LeftOut
}

// Find returns the command of that name.
func (c *Commands) Find(name string) (Command, bool) {
	if c == nil {
		return Command{}, false
	}
	i := slices.IndexFunc(c.All, func(k Command) bool { return k.Name == name })
	if i < 0 {
		return Command{}, false
	}
	return c.All[i], true
}

// LoadCommands reads the slash commands of the user (~/.claude/commands,
// ~/.offshoot/commands) and of the project (its repository root's
// .claude/commands and .offshoot/commands; see Options.Dir): every *.md
// file of those folders. As for skills, the user's command wins over the
// project's of the same name, and .offshoot over .claude. A file that is
// not a regular file, or over 1 MiB, is left out; frontmatter that is not
// valid YAML is read line by line, with a warning.
func LoadCommands(opts Options) *Commands {
	c := &Commands{}
	c.All = layered(opts, "commands", c.scan,
		func(k Command) string { return k.Name }, func(k Command) string { return k.Path }, &c.LeftOut,
		func(name, winner string) string {
			return fmt.Sprintf("command /%s is defined by %s too, which wins", name, winner)
		})
	return c
}

// scan reads the commands of one folder, in sorted order.
func (c *Commands) scan(dir, source string) []Command {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.LeftOut = append(c.LeftOut, LeftOut{Path: dir, Reason: fmt.Sprintf("the commands folder cannot be read (%v)", err)})
		}
		return nil
	}
	var out []Command
	for _, e := range entries {
		name, isMD := strings.CutSuffix(e.Name(), ".md")
		if strings.HasPrefix(e.Name(), ".") || !isMD || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if len(out) == maxCommands {
			c.LeftOut = append(c.LeftOut, LeftOut{Path: dir, Reason: fmt.Sprintf("more than %d commands: the others are left out", maxCommands)})
			break
		}
		if !commandNameRE.MatchString(name) {
			c.LeftOut = append(c.LeftOut, LeftOut{Path: path, Reason: "the file's name is no command name: use letters, digits, hyphens, dots and underscores"})
			continue
		}
		data, err := regfile.Read(path, maxSkillFile)
		if err != nil {
			c.LeftOut = append(c.LeftOut, LeftOut{Path: path, Reason: fmt.Sprintf("cannot be read: %v", err)})
			continue
		}
		k, ok := c.parse(path, name, data)
		if !ok {
			continue
		}
		k.Source = source
		out = append(out, k)
	}
	return out
}

// commandKeys are the frontmatter keys read.
var commandKeys = map[string]bool{"description": true, "argument-hint": true, "allowed-tools": true, "model": true}

// parse reads a command file.
func (c *Commands) parse(path, name string, data []byte) (Command, bool) {
	k := Command{Name: name, Path: path}
	text, bad := frontmatter.Normalize(data)
	if bad {
		c.Warnings = append(c.Warnings, LeftOut{Path: path, Reason: "the file is not valid UTF-8; its invalid bytes were replaced"})
	}
	doc, problem, line, _ := frontmatter.Split(text, maxSkillFront)
	switch problem {
	case frontmatter.None:
		m, strictErr, _ := frontmatter.Parse(doc.Front, doc.FrontLine, func(key string) bool { return commandKeys[key] })
		if strictErr != nil {
			l, msg := frontmatter.YAMLProblem(strictErr, doc.FrontLine)
			at := path
			if l > 0 {
				at = fmt.Sprintf("%s:%d", path, l)
			}
			c.Warnings = append(c.Warnings, LeftOut{Path: at, Reason: fmt.Sprintf("the frontmatter is not valid YAML (%s); it was read line by line instead. To make it valid, quote values that contain \": \"", msg)})
		}
		c.fields(&k, m)
		k.Body = doc.Body
	case frontmatter.Missing, frontmatter.NotFirst:
		k.Body = strings.TrimSpace(text) // a command needs no frontmatter
	default:
		c.LeftOut = append(c.LeftOut, LeftOut{Path: fmt.Sprintf("%s:%d", path, line), Reason: "the frontmatter cannot be read: it must open on the first line with --- and close with ---"})
		return k, false
	}
	if k.Description == "" {
		for _, l := range strings.Split(k.Body, "\n") {
			if t := strings.TrimSpace(strings.TrimLeft(l, "#")); t != "" {
				k.Description = clip(t)
				break
			}
		}
	}
	if strings.TrimSpace(k.Body) == "" {
		c.LeftOut = append(c.LeftOut, LeftOut{Path: path, Reason: "the command has no text: write the prompt below the frontmatter"})
		return k, false
	}
	return k, true
}

// fields reads the frontmatter's keys into k.
func (c *Commands) fields(k *Command, m *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := m.Content[i], m.Content[i+1]
		switch key.Value {
		case "description":
			k.Description = strings.TrimSpace(scalar(v))
		case "argument-hint":
			k.ArgumentHint = strings.TrimSpace(scalar(v))
			if v.Kind == yaml.SequenceNode { // argument-hint: [file] read as a list
				var parts []string
				for _, e := range v.Content {
					parts = append(parts, "["+scalar(e)+"]")
				}
				k.ArgumentHint = strings.Join(parts, " ")
			}
		case "model":
			k.Model = strings.TrimSpace(scalar(v))
		case "allowed-tools":
			if v.Kind == yaml.SequenceNode {
				k.AllowedTools = []string{}
				for _, e := range v.Content {
					k.AllowedTools = append(k.AllowedTools, frontmatter.SplitToolList(scalar(e))...)
				}
			} else if t := scalar(v); strings.TrimSpace(t) != "" {
				k.AllowedTools = frontmatter.SplitToolList(t)
			}
		}
	}
}

// positionalRE matches $ARGUMENTS and $1 … $9.
var positionalRE = regexp.MustCompile(`\$(ARGUMENTS|[1-9])`)

// Expand returns the command's text for the arguments args: $ARGUMENTS
// replaced by args, $1 … $9 by each argument (words, or text in quotes),
// "" for one not given. When the text names no argument and args are
// given, they follow it after a blank line as "ARGUMENTS: …", as in
// Claude Code. The arguments are text, never read as a template.
func (k Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	if !positionalRE.MatchString(k.Body) {
		if args == "" {
			return k.Body
		}
		return k.Body + "\n\nARGUMENTS: " + args
	}
	words := splitArgs(args)
	return positionalRE.ReplaceAllStringFunc(k.Body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		n := int(m[1] - '0')
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
}

// splitArgs splits args into words as a shell would, without expanding
// anything: spaces separate words, except inside single or double quotes,
// which are removed.
func splitArgs(args string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range args {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// ParseCommandLine reads a line the user typed as a slash command, "/NAME
// ARGS": it returns the name and the arguments, and false for a line that
// is no slash command (its first character is not "/", or "/" is followed
// by no name, as in a path such as /etc/hosts).
func ParseCommandLine(line string) (name, args string, ok bool) {
	rest, ok := strings.CutPrefix(line, "/")
	if !ok {
		return "", "", false
	}
	name, args, _ = strings.Cut(rest, " ")
	if !commandNameRE.MatchString(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}
