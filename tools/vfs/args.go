package vfs

import (
	"errors"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/tools"
)

// invalidArg turns what is wrong with the argument field of a call — a
// *pathError or a glob's *patternError — into the call's validation
// failure, which the model reads as "Tool validation failed: TOOL: FIELD:
// REASON" (the tools package fills in the tool). Any other error is
// returned as it is. Every tool hands its path and pattern problems here,
// so they all read alike.
func invalidArg(field string, err error) error {
	var (
		pe     *pathError
		pat    *patternError
		reason string
	)
	switch {
	case errors.As(err, &pe):
		reason = pe.Reason
	case errors.As(err, &pat):
		reason = pat.Reason
	default:
		return err
	}
	return &tools.ValidationError{Err: &serde.ValidationError{Path: field, Reason: reason}}
}
