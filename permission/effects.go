package permission

import (
	"slices"
	"strings"
)

// effect is what a call of a tool does, as the permission modes see it:
// the one place that says which of offshoot's tools change something and
// which are asked about.
type effect int

const (
	// reads reads the agents' files or the session: runs in every mode.
	reads effect = iota
	// keeps plans, delegates or loads a skill: it changes only the
	// session's own records, and a child's calls are decided themselves.
	keeps
	// edits changes the agents' files (write_file, edit_file, rm): they
	// are the session's copy, written back to disk only when the user
	// says so, so the default mode does not ask; plan refuses them.
	edits
	// runs runs a command (bash): asked about; plan refuses it.
	runs
	// fetches reads a web page: asked about; plan lets it run.
	fetches
	// external calls an MCP server's tool, which may change anything
	// the server reaches: asked about; plan refuses it.
	external
	// other is a program's own tool: the program offered it, so it runs
	// unasked; plan, not knowing what it does, refuses it.
	other
)

// keepTools are offshoot's tools of effect keeps.
var keepTools = []string{
	"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step",
	"planning_clear_plan", "planning_read_plan", "Task", "TaskOutput", "TaskStop",
	"dispatch_subagent", "Skill",
}

// effectOf returns the effect of a call of the tool named tool.
func effectOf(tool string) effect {
	switch {
	case slices.Contains(readTools, tool):
		return reads
	case slices.Contains(editTools, tool):
		return edits
	case isBash(tool):
		return runs
	case toolKind(tool) == "fetch":
		return fetches
	case strings.HasPrefix(tool, "mcp__"):
		return external
	case slices.Contains(keepTools, tool):
		return keeps
	}
	return other
}

// changes reports whether a call of this effect may change something
// outside the session's records: what plan mode refuses.
func (e effect) changes() bool {
	return e == edits || e == runs || e == external || e == other
}

// asks reports whether a call of this effect that no rule or mode allows
// is asked about (the CanUseTool callback) rather than run.
func (e effect) asks() bool { return e == runs || e == fetches || e == external }

// fileCommands are the bash commands acceptEdits allows, as Claude Code
// does: they only make, move and remove files.
var fileCommands = []string{"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"}

// onlyFileCommands reports whether every part of a bash command is one of
// fileCommands (and none substitutes another command's output).
func onlyFileCommands(command string) bool {
	parts := splitCommand(command)
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		f := strings.Fields(p)
		if substitutes(p) || len(f) == 0 || !slices.Contains(fileCommands, f[0]) {
			return false
		}
	}
	return true
}
