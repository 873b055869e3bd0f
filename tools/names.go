package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxDescription is the longest tool description accepted, in characters.
const MaxDescription = 1024

// checkName reports why name is not a valid tool name
// (^[A-Za-z0-9_-]{1,64}$), or nil.
func checkName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("tools: tool name %q must be 1 to 64 characters long (ASCII letters, digits, '_' or '-')", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("tools: tool name %q may contain only ASCII letters, digits, '_' and '-'", name)
		}
	}
	return nil
}

// cleanDescription trims description and checks its length.
func cleanDescription(name, description string) (string, error) {
	d := strings.TrimSpace(description)
	switch n := utf8.RuneCountInString(d); {
	case n == 0:
		return "", fmt.Errorf("tools: tool %q needs a description telling the model what it does", name)
	case n > MaxDescription:
		return "", fmt.Errorf("tools: the description of tool %q is %d characters long; shorten it to at most %d", name, n, MaxDescription)
	}
	return d, nil
}

// Validate reports what is wrong with the spec, or nil: a name that is
// not 1 to 64 ASCII letters, digits, '_' or '-'; a description that is
// empty, longer than MaxDescription characters or not trimmed; params
// that are not a JSON Schema of an object; a result schema or an example
// that is not JSON; reducers with rules but no key.
func (s Spec) Validate() error {
	var errs []error
	if err := checkName(s.Name); err != nil {
		errs = append(errs, err)
	}
	if d, err := cleanDescription(s.Name, s.Description); err != nil {
		errs = append(errs, err)
	} else if d != s.Description {
		errs = append(errs, fmt.Errorf("tools: the description of tool %q has space around it; trim it", s.Name))
	}
	var params struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(s.Params, &params); err != nil || params.Type != "object" {
		errs = append(errs, fmt.Errorf("tools: the params schema of tool %q is not a JSON Schema of an object (the model sends a JSON object); give one with \"type\": \"object\"", s.Name))
	}
	if len(s.Result) > 0 && !json.Valid(s.Result) {
		errs = append(errs, fmt.Errorf("tools: the result schema of tool %q is not valid JSON", s.Name))
	}
	for i, ex := range s.Examples {
		if !json.Valid(ex.Input) || firstByte(ex.Input) != '{' || (len(ex.Output) > 0 && !json.Valid(ex.Output)) {
			errs = append(errs, fmt.Errorf("tools: example %d of tool %q is not JSON arguments (an object) and a JSON result", i, s.Name))
		}
	}
	if s.Reducers.Key == "" && (len(s.Reducers.Rules) > 0 || len(s.Reducers.Seed) > 0) {
		errs = append(errs, fmt.Errorf("tools: the reducers of tool %q have no key; name the set, such as with the import path of the package that owns it", s.Name))
	}
	return errors.Join(errs...)
}

// firstByte is the first byte of data that is not white space, or 0.
func firstByte(data []byte) byte {
	for _, c := range data {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}
