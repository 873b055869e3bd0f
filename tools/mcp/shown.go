package mcp

import (
	"cmp"
	"slices"
	"strings"
)

// A configuration file refers to keys as ${VAR} (an Authorization header,
// a URL's query, an argument), and what offshoot prints of a server reaches
// terminals and CI logs, and the model. So a server is shown as its file
// writes it, and the values its references were replaced by are kept out
// of every message about it.

// written is what a configuration file wrote for a server whose ${VAR}
// references were replaced.
type written struct {
	// command, args and url are as the file wrote them.
	command string
	args    []string
	url     string
	// refs are the environment variables' values put in, each with the
	// reference it replaced, longest value first.
	refs []reference
}

// reference is a value an environment variable gave, and the reference
// ("${NAME}") it replaced.
type reference struct{ value, ref string }

// Describe returns what the server runs or reaches, as its configuration
// file writes it: the command and its arguments, or the URL. A ${VAR}
// reference is shown as written, never as the variable's value.
func (c ServerConfig) Describe() string {
	command, args, url := c.Command, c.Args, c.URL
	if c.written != nil {
		command, args, url = c.written.command, c.written.args, c.written.url
	}
	if command != "" {
		return strings.Join(append([]string{command}, args...), " ")
	}
	return url
}

// shownURL is the URL as its file writes it.
func (c ServerConfig) shownURL() string {
	if c.written != nil {
		return c.written.url
	}
	return c.URL
}

// hide replaces in s every value an environment variable gave c by the
// reference it replaced.
func (c ServerConfig) hide(s string) string {
	if c.written == nil {
		return s
	}
	for _, r := range c.written.refs {
		s = strings.ReplaceAll(s, r.value, r.ref)
	}
	return s
}

// hideError returns err with the values an environment variable gave c
// replaced in its message by their references; errors.Is and errors.As
// still see err.
func (c ServerConfig) hideError(err error) error {
	if err == nil {
		return nil
	}
	if msg := c.hide(err.Error()); msg != err.Error() {
		return &hiddenError{msg: msg, err: err}
	}
	return err
}

// hiddenError is an error whose message had values taken out.
type hiddenError struct {
	msg string
	err error
}

func (e *hiddenError) Error() string { return e.msg }
func (e *hiddenError) Unwrap() error { return e.err }

// recordWritten keeps what the file wrote, before expansion, when refs
// (the values expansion put in) is not empty.
func (c *ServerConfig) recordWritten(raw rawServer, refs []reference) {
	refs = slices.DeleteFunc(refs, func(r reference) bool { return r.value == "" })
	if len(refs) == 0 {
		return
	}
	slices.SortStableFunc(refs, func(a, b reference) int { return cmp.Compare(len(b.value), len(a.value)) })
	c.written = &written{command: raw.Command, args: slices.Clone(raw.Args), url: raw.URL, refs: refs}
}
