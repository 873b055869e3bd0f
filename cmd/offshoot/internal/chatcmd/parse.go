package chatcmd

import (
	"strings"
	"unicode"
)

// kind is what a line of input asks for.
type kind int

const (
	// message: a turn with the line as the user's message; an empty one
	// continues on what background tasks reported.
	message kind = iota
	// mention: "@NAME TEXT", a turn that hands TEXT to the agent NAME.
	mention
	// command: "/NAME ARG", one of the chat's commands.
	command
)

// request is a line of input, parsed.
type request struct {
	kind kind
	// name is the agent mentioned, or the command without its slash.
	name string
	// text is the message, the mention's text or the command's argument,
	// trimmed.
	text string
}

// parse reads a line: a command when it starts with a slash, a mention
// when it starts with @, a message otherwise. A name ends at the first
// space; punctuation after a mention's name ("@explore, …") is not part
// of it.
func parse(line string) request {
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "/"):
		name, arg := word(line[1:])
		return request{kind: command, name: name, text: arg}
	case strings.HasPrefix(line, "@"):
		name, text := word(line[1:])
		return request{kind: mention, name: strings.TrimRightFunc(name, unicode.IsPunct), text: text}
	default:
		return request{kind: message, text: line}
	}
}

// word splits s at its first space: the word before it, and the rest,
// trimmed.
func word(s string) (first, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}
