package prompt

import (
	"errors"
	"strings"
)

// sectionError is a construction error of a section: a bad title or key,
// an option of the wrong type, a template that does not parse, refers to a
// field its params type lacks, or fails on the zero params. prompt.New
// returns these joined.
type sectionError struct {
	// Section is the section's key (or its title when the key is bad).
	Section string
	// Err is what is wrong.
	Err error
}

// Error returns `prompt: section "KEY": PROBLEM`.
func (e *sectionError) Error() string {
	return `prompt: section "` + e.Section + `": ` + e.Err.Error()
}

// Unwrap returns the problem.
func (e *sectionError) Unwrap() error { return e.Err }

// ValidationError says that the params given to Render are not acceptable:
// a value no section takes, two values of one type, a value that is not a
// struct, or a field that fails its `validate` tag. For a field, Err is the
// *serde.ValidationError, which errors.As finds through this error.
type ValidationError struct {
	// Section is the path of the section whose params failed ("" when the
	// value matches no section).
	Section string
	// Field is the JSON path of the failing field ("" when the problem is
	// the value as a whole).
	Field string
	// Reason says what is wrong and what to do.
	Reason string
	// Err is the underlying validation error, if any.
	Err error
}

// Error returns `prompt: section "PATH": invalid params: FIELD: REASON`, or
// `prompt: REASON` for a problem with a value as a whole.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("prompt: ")
	if e.Section != "" {
		b.WriteString(`section "` + e.Section + `": invalid params: `)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the underlying validation error.
func (e *ValidationError) Unwrap() error { return e.Err }

// RenderError says that a section's template failed while rendering.
type RenderError struct {
	// Section is the path of the failing section, such as "tools/files".
	Section string
	// Err is the template's error.
	Err error
}

// Error returns `prompt: rendering section "PATH": ERROR`.
func (e *RenderError) Error() string {
	return `prompt: rendering section "` + e.Section + `": ` + e.Err.Error()
}

// Unwrap returns the template's error.
func (e *RenderError) Unwrap() error { return e.Err }

// OutputError says that a model's structured output could not be parsed:
// no JSON value was found, or it does not match the declared output type.
// Path is the JSON path of the first problem and Reason what was expected
// there; Err, when set, is the cause (a *serde.ValidationError, or several
// joined).
type OutputError struct {
	// Path is the JSON path of the offending value, "" for the root.
	Path string
	// Reason says what was expected.
	Reason string
	// Err is the cause, if any.
	Err error
}

// Error returns "prompt: structured output: PATH: REASON", listing every
// problem when there are several.
func (e *OutputError) Error() string {
	if j, ok := e.Err.(interface{ Unwrap() []error }); ok {
		var parts []string
		for _, err := range j.Unwrap() {
			parts = append(parts, err.Error())
		}
		return "prompt: structured output: " + strings.Join(parts, "; ")
	}
	if e.Path == "" {
		return "prompt: structured output: " + e.Reason
	}
	return "prompt: structured output: " + e.Path + ": " + e.Reason
}

// Unwrap returns the cause.
func (e *OutputError) Unwrap() error { return e.Err }

var (
	// ErrNotFound is matched (errors.Is) by lookups of prompts that are
	// not registered.
	ErrNotFound = errors.New("prompt not found")
	// ErrDisabled is matched (errors.Is) by lookups that require an
	// enabled prompt and find a disabled one.
	ErrDisabled = errors.New("prompt disabled")
)

// lookupError says that a registry lookup failed, and lists what the
// namespace holds.
type lookupError struct {
	// NS and Key are what was looked up.
	NS, Key string
	// Registered are the keys registered in NS, sorted.
	Registered []string
	// Disabled reports that the prompt exists but is disabled.
	Disabled bool
}

// Error says what was not found and what is registered instead.
func (e *lookupError) Error() string {
	if e.Disabled {
		return `prompt: prompt "` + e.NS + "/" + e.Key + `" is disabled; enable it with Registry.Enable or pick another`
	}
	msg := `prompt: no prompt "` + e.NS + "/" + e.Key + `" is registered`
	if len(e.Registered) == 0 {
		return msg + `; namespace "` + e.NS + `" has none`
	}
	return msg + `; namespace "` + e.NS + `" has: ` + strings.Join(e.Registered, ", ")
}

// Unwrap returns ErrDisabled or ErrNotFound.
func (e *lookupError) Unwrap() error {
	if e.Disabled {
		return ErrDisabled
	}
	return ErrNotFound
}
