package agents

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Diagnostic is a problem found while loading definitions: an error (the
// definition is not loaded) or a warning (it is loaded and the problem
// noted). Registry.Errors and Registry.Warnings return them; Format returns
// errors of this type too.
type Diagnostic struct {
	// Path is the file, or "--agents" / "Options.Agents" for definitions
	// given by the program; empty for Format.
	Path string
	// Line is the 1-based line in Path, or 0 when not known.
	Line int
	// Agent is the name of the agent concerned, when known.
	Agent string
	// Field is the key concerned ("tools", "description", …), when one is.
	Field string
	// Message says what is wrong and what to do.
	Message string
}

// Error returns "PATH:LINE: MESSAGE", leaving out the parts that are not
// known.
func (d *Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString(d.Path)
	if d.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		} else {
			b.WriteString("line ")
		}
		b.WriteString(strconv.Itoa(d.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if d.Agent != "" && (d.Path == "" || d.Line == 0) {
		b.WriteString("agent " + strconv.Quote(d.Agent) + ": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// quote returns s quoted for a message, cut to 80 characters: values
// come from files and may be long.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:80]) + "…"
	}
	return strconv.Quote(s)
}

// ErrNoAgents is the error of Registry.Find when the registry holds no
// definitions.
var ErrNoAgents = errors.New("No subagents available for delegation")

// NotFoundError is the error of Registry.Find when no definition matches.
type NotFoundError struct {
	// Name is the name asked for.
	Name string
	// Available are the names of the registry's definitions, sorted.
	Available []string
}

// Error returns "Subagent 'NAME' not found. Available: a, b, c".
func (e *NotFoundError) Error() string {
	return "Subagent '" + e.Name + "' not found. Available: " + strings.Join(e.Available, ", ")
}

// MissingToolsError is the error of ResolveTools when a definition lists
// tools and none of them is available to the child.
type MissingToolsError struct {
	// Tools are the tools the definition asks for.
	Tools []string
}

// Error returns "Subagent lacks permission for required tools: [a, b]".
func (e *MissingToolsError) Error() string {
	return "Subagent lacks permission for required tools: [" + strings.Join(e.Tools, ", ") + "]"
}
