package cli

import (
	"fmt"
	"strings"
)

// ProjectLines are what run and chat say at their start about what
// instructs the agents besides the prompt — the project's memory
// (Env.Memory), the skills (Env.Skills) and the settings files
// (Env.Settings), since the project's may be anyone's — about the files
// left out, each with why, and about the hooks that run (HookLines). None
// when there is nothing to say.
func (e *Env) ProjectLines() []string {
	var lines []string
	if e.Memory != nil {
		if files := e.Memory.Files; len(files) > 0 {
			names := make([]string, len(files))
			for i, f := range files {
				names[i] = Printable(f.Name)
			}
			lines = append(lines, fmt.Sprintf("instructions from %s", strings.Join(names, ", ")))
		}
		for _, l := range e.Memory.LeftOut {
			lines = append(lines, fmt.Sprintf("instructions left out: %s: %s", Printable(l.Path), Printable(l.Reason)))
		}
	}
	if e.Skills != nil {
		if all := e.Skills.All; len(all) > 0 {
			names := make([]string, len(all))
			for i, k := range all {
				names[i] = Printable(k.Name) + " (" + Printable(e.Show(k.Path)) + ")"
			}
			lines = append(lines, fmt.Sprintf("skills: %s", strings.Join(names, ", ")))
		}
		for _, l := range e.Skills.LeftOut {
			lines = append(lines, fmt.Sprintf("skill left out: %s: %s", Printable(e.Show(l.Path)), Printable(l.Reason)))
		}
		for _, l := range e.Skills.Warnings {
			lines = append(lines, fmt.Sprintf("warning: skill %s: %s", Printable(e.Show(l.Path)), Printable(l.Reason)))
		}
	}
	if e.Commands != nil {
		for _, l := range e.Commands.LeftOut {
			lines = append(lines, fmt.Sprintf("command left out: %s: %s", Printable(e.Show(l.Path)), Printable(l.Reason)))
		}
		for _, l := range e.Commands.Warnings {
			lines = append(lines, fmt.Sprintf("warning: command %s: %s", Printable(e.Show(l.Path)), Printable(l.Reason)))
		}
	}
	if e.Settings != nil {
		if files := e.Settings.Files; len(files) > 0 {
			names := make([]string, len(files))
			for i, f := range files {
				names[i] = Printable(e.Show(f))
			}
			lines = append(lines, fmt.Sprintf("settings from %s", strings.Join(names, ", ")))
		}
		for _, w := range e.Settings.Warnings {
			lines = append(lines, "warning: settings: "+Printable(w))
		}
	}
	if len(e.Remembered) > 0 {
		rules := make([]string, len(e.Remembered))
		for i, r := range e.Remembered {
			rules[i] = r.String()
		}
		lines = append(lines, fmt.Sprintf("allowed for good at the terminal: %s (in %s)", Printable(truncateRunes(strings.Join(rules, ", "), 300)), Printable(e.Show(e.UserConfigFile()))))
	}
	return append(lines, e.hookLines...)
}
