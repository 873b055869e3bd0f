package planning

import (
	"github.com/offshoot-dev/offshoot/prompt"
)

// defaultTitle is the title of the section Section builds when Options
// give none.
const defaultTitle = "Planning"

// Options configure Section. The zero value is ready to use.
type Options struct {
	// Title is the section's title ("Planning" when empty); the section
	// key is derived from it unless prompt.WithKey gives one.
	Title string
}

// guide is the model-facing text of the section.
const guide = `
	Use the planning tools for work of several steps; skip them for a single quick step.

	- Start with planning_setup_plan: an objective and the first steps, which get ids S001, S002, ...
	- Mark a step in_progress with planning_mark_step before working on it, then done (with a short note), or blocked with a note saying why.
	- Add steps you discover with planning_add_step; fix a step's title or details with planning_update_step.
	- The plan completes itself when every step is done. Read it at any time with planning_read_plan; abandon it with planning_clear_plan.
	- Write plain ASCII: an objective of up to 240 characters, titles up to 160, details and notes up to 512.`

// Section returns a prompt section with a short guide for the model and
// the six planning tools of Tools. The section holds no session: the tools
// install their reducers on the session the runner evaluates against.
// extra options (prompt.WithKey, prompt.WithChildren, …) are applied after
// the section's own.
func Section(opts Options, extra ...prompt.SectionOption) *prompt.Section {
	title := opts.Title
	if title == "" {
		title = defaultTitle
	}
	set, err := Tools()
	own := prompt.WithTools(set.Tools()...)
	if err != nil {
		own = prompt.WithTool(nil, err)
	}
	return prompt.Markdown[prompt.NoParams](title, guide, append([]prompt.SectionOption{own}, extra...)...)
}
