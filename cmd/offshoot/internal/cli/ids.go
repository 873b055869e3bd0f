package cli

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ShortLen is how many characters of an id the command line prints where
// a whole one would not fit (a session in sessions list, an agent in the
// tree): what a person types back. A start of an id this long or longer
// names the one id that starts so.
const ShortLen = 8

// maxMatches bounds how many ids an ambiguous start lists.
const maxMatches = 10

// ShortID returns id as the command line prints it short: its first
// ShortLen characters, or id whole when that is not much longer.
func ShortID(id string) string {
	if utf8.RuneCountInString(id) <= ShortLen+4 {
		return id
	}
	n := 0
	for i := range id {
		if n == ShortLen {
			return id[:i]
		}
		n++
	}
	return id
}

// IDs finds ids of one kind (sessions, agents) for Resolve.
type IDs struct {
	// Kind names one of them as a person reads it: "session", "agent".
	Kind string
	// Flag, when not empty, names the flag that gave the id, for the
	// errors ("--resume").
	Flag string
	// Exists reports whether an id is one whole.
	Exists func(id string) (bool, error)
	// Starting returns at most limit ids that start with prefix.
	Starting func(prefix string, limit int) ([]string, error)
}

// Resolve returns the whole id that given names: given itself when it is
// one, else the one id that starts with given, when given has ShortLen
// characters or more. found is false when no id is given or starts so
// (the caller says so, with Short, and how to list them). A start that
// several ids share is a usage error that lists them; a failure of the
// lookups is returned as it is.
func (f IDs) Resolve(given string) (id string, found bool, err error) {
	if given == "" {
		return "", false, nil
	}
	ok, err := f.Exists(given)
	if err != nil || ok {
		return given, ok, err
	}
	if utf8.RuneCountInString(given) < ShortLen {
		return "", false, nil
	}
	ids, err := f.Starting(given, maxMatches+1)
	if err != nil {
		return "", false, err
	}
	switch len(ids) {
	case 0:
		return "", false, nil
	case 1:
		return ids[0], true, nil
	}
	more := ""
	if len(ids) > maxMatches {
		ids, more = ids[:maxMatches], ", and more"
	}
	slices.Sort(ids)
	listed := make([]string, 0, len(ids))
	for _, id := range ids {
		listed = append(listed, Printable(id))
	}
	return "", false, Usagef("%s%s is the start of more than one %s id: %s%s; give more of the id",
		f.prefix(), PrintableID(given), f.Kind, strings.Join(listed, ", "), more)
}

// Short returns what to add to the error that no id given names: that a
// start of an id names one only with ShortLen characters or more, when
// given is shorter; "" otherwise.
func Short(given string) string {
	if given == "" || utf8.RuneCountInString(given) >= ShortLen {
		return ""
	}
	return fmt.Sprintf(" (a start of an id names one only with %d characters or more: give %d or more, or the whole id)", ShortLen, ShortLen)
}

// prefix starts an error with the flag that gave the id, if any.
func (f IDs) prefix() string {
	if f.Flag == "" {
		return ""
	}
	return fmt.Sprintf("%s: ", f.Flag)
}
