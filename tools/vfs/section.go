package vfs

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/prompt"
)

// defaultTitle is the title of the section Section builds when Options
// give none.
const defaultTitle = "Virtual Filesystem"

// guide is the model-facing text of the section.
const guide = `
	You have a virtual filesystem of text files that lives in this session. It is not the host's disk: what you write stays here unless the application writes it back.

	- Paths start at the root, like docs/notes.md: ASCII, no "." or ".." parts, at most 16 levels.
	- Look around with ls, find files with glob (**/*.md matches at any depth) and search lines with grep (Go regular expressions).
	- read_file shows numbered lines ("   3 | text"); page through long files with offset and limit.
	- write_file creates a new file of up to 48,000 characters. Change an existing file with edit_file: old_string must match exactly once unless you set replace_all.
	- rm removes a file, or a directory with everything below it.`

// Section returns a prompt section (titled opts.Title) with a short guide
// for the model and the seven VFS tools of Tools(opts). Mounts are loaded
// now; a mount that cannot be loaded, like any construction problem, is
// the section's error, which prompt.New reports. The section holds no
// session: the tools install themselves on the session the runner
// evaluates against. extra options (prompt.WithKey, prompt.WithChildren,
// …) are applied after the section's own.
func Section(opts Options, extra ...prompt.SectionOption) *prompt.Section {
	set, err := Tools(opts)
	var sectionOpts []prompt.SectionOption
	if err != nil {
		sectionOpts = append(sectionOpts, prompt.WithTool(nil, err))
	} else {
		sectionOpts = append(sectionOpts, prompt.WithTools(set.Tools()...))
	}
	title := opts.Title
	if title == "" {
		title = defaultTitle
	}
	return prompt.Markdown[prompt.NoParams](title, guide+mountNote(opts.Mounts), append(sectionOpts, extra...)...)
}

// mountNote tells the model where the mounted host files are, as template
// text (braces escaped).
func mountNote(mounts []Mount) string {
	if len(mounts) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var dirs []string
	for _, m := range mounts {
		dir, err := normalizeDir(m.MountPath)
		if err != nil {
			continue
		}
		if dir == "" {
			dir = "/"
		} else {
			dir += "/"
		}
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return ""
	}
	note := fmt.Sprintf("\n\n\tCopies of host files were placed under %s when the session started; changing them changes the copies, which the application may write back to the host once you are done.", strings.Join(dirs, ", "))
	return strings.ReplaceAll(note, "{{", `{{"{{"}}`)
}
