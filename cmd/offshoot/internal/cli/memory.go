package cli

import (
	"fmt"
	"strings"
)

// MemoryLines are what run and chat say at their start about the
// project's memory (Env.Memory): the files the agents read as
// instructions, since the project's may be anyone's, and those left out,
// each with why. None when no file was found.
func (e *Env) MemoryLines() []string {
	if e.Memory == nil {
		return nil
	}
	var lines []string
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
	return lines
}
