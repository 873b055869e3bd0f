package planning

import (
	"errors"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/serde"
)

// Text limits, in characters, after trimming surrounding white space.
const (
	maxObjective = 240
	maxTitle     = 160
	maxDetails   = 512
	maxNote      = 512
)

// cleanText trims s and checks that it is ASCII of min to max characters.
// A failure is a *serde.ValidationError at path.
func cleanText(path, s string, minLen, maxLen int) (string, error) {
	t := strings.TrimSpace(s)
	for i := 0; i < len(t); i++ {
		if t[i] >= 0x80 {
			return "", &serde.ValidationError{Path: path, Reason: "must be ASCII"}
		}
	}
	switch {
	case len(t) < minLen:
		return "", &serde.ValidationError{Path: path, Reason: "must not be empty once trimmed"}
	case len(t) > maxLen:
		return "", &serde.ValidationError{Path: path, Reason: fmt.Sprintf("must be at most %d characters once trimmed; shorten it (it has %d)", maxLen, len(t))}
	}
	return t, nil
}

// cleanDrafts trims and checks steps to add, at path (such as
// "initial_steps").
func cleanDrafts(path string, drafts []StepDraft) ([]StepDraft, error) {
	out := make([]StepDraft, len(drafts))
	var errs []error
	for i, d := range drafts {
		at := fmt.Sprintf("%s[%d]", path, i)
		title, err := cleanText(at+".title", d.Title, 1, maxTitle)
		if err != nil {
			errs = append(errs, err)
		}
		details, err := cleanText(at+".details", d.Details, 0, maxDetails)
		if err != nil {
			errs = append(errs, err)
		}
		out[i] = StepDraft{Title: title, Details: details}
	}
	return out, errors.Join(errs...)
}
