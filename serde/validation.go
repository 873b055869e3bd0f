package serde

import (
	"errors"
	"reflect"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// ValidationError says that one value, at a JSON field path, is not
// acceptable, and why. It is the one validation error type of the library:
// decoding, struct validation, tool parameters and prompt params all report
// it, wrapped with their own context, so errors.As finds it anywhere.
//
// Several failures are joined with errors.Join; errors.As then finds the
// first one.
type ValidationError struct {
	// Path is the JSON path of the offending value, such as
	// "steps[2].title"; it is empty for the root value.
	Path string
	// Reason says what is wrong in words a model or a person can act on,
	// such as "is required" or "must be at most 160 characters".
	Reason string
}

// Error returns "path: reason", or just the reason for the root value.
func (e *ValidationError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// embeddedMark names embedded structs in validator namespaces so that their
// segment can be removed: encoding/json promotes their fields.
const embeddedMark = "\x00"

var (
	validateOnce sync.Once
	validateInst *validator.Validate
)

// validatorInstance returns the process-wide validator, configured to name
// fields by their JSON names.
func validatorInstance() *validator.Validate {
	validateOnce.Do(func() {
		v := validator.New(validator.WithRequiredStructEnabled())
		v.RegisterTagNameFunc(jsonFieldName)
		// Same rules as the built-ins, without their regular expressions.
		for tag, ok := range map[string]func(byte) bool{
			"ascii":      func(c byte) bool { return c < 0x80 },
			"printascii": func(c byte) bool { return c >= 0x20 && c <= 0x7e },
			"alphanum": func(c byte) bool {
				return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
			},
		} {
			_ = v.RegisterValidation(tag, stringOf(ok, tag == "alphanum"))
		}
		validateInst = v
	})
	return validateInst
}

// stringOf returns a validator function that accepts a string whose bytes
// all satisfy ok (and that is non-empty when nonEmpty is set).
func stringOf(ok func(byte) bool, nonEmpty bool) validator.Func {
	return func(fl validator.FieldLevel) bool {
		f := fl.Field()
		if f.Kind() != reflect.String {
			return false
		}
		s := f.String()
		if nonEmpty && s == "" {
			return false
		}
		for i := range len(s) {
			if !ok(s[i]) {
				return false
			}
		}
		return true
	}
}

// jsonFieldName is the validator tag-name function: the field's JSON name,
// the embedded mark for a promoted embedded struct, or "" (the Go name).
func jsonFieldName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if isValidJSONName(name) {
		return name
	}
	if f.Anonymous {
		t := f.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			return embeddedMark
		}
	}
	return ""
}

// Validate checks v against its `validate` struct tags
// (github.com/go-playground/validator/v10) and returns nil, one
// *ValidationError, or several joined with errors.Join. Paths use JSON field
// names, with slice indexes as [i] and map keys as [key].
//
// v may be a struct, a pointer to one, or a slice, array or map of structs
// (each element is validated, paths start with [i]). Fields that are slices
// of structs are validated element by element only with a `dive` tag, as
// validator does. A nil v, a nil pointer and values with no struct inside
// have nothing to validate and yield nil.
func Validate(v any) error {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		return validatePointer(v, infoOf(rv.Type().Elem()))
	}
	info := infoOf(rv.Type())
	switch info.mode {
	case validateStruct:
		return info.translate(validatorInstance().Struct(v))
	case validateDive:
		return info.translate(validatorInstance().Var(v, "dive"))
	}
	return nil
}

// validatePointer validates the value ptr (a non-nil pointer to a value of
// info's type) points to.
func validatePointer(ptr any, info *typeInfo) error {
	switch info.mode {
	case validateStruct:
		if info.ptrDepth == 0 {
			return info.translate(validatorInstance().Struct(ptr))
		}
		rv := reflect.ValueOf(ptr).Elem()
		for range info.ptrDepth - 1 {
			if rv.IsNil() {
				return nil
			}
			rv = rv.Elem()
		}
		if rv.IsNil() {
			return nil
		}
		return info.translate(validatorInstance().Struct(rv.Interface()))
	case validateDive:
		rv := reflect.ValueOf(ptr).Elem()
		for rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return nil
			}
			rv = rv.Elem()
		}
		return info.translate(validatorInstance().Var(rv.Interface(), "dive"))
	}
	return nil
}

// translate rewrites validator's errors as *ValidationError values.
func (info *typeInfo) translate(err error) error {
	if err == nil {
		return nil
	}
	var fes validator.ValidationErrors
	if !errors.As(err, &fes) {
		var inv *validator.InvalidValidationError
		if errors.As(err, &inv) {
			return nil // nothing validator can look into
		}
		return err
	}
	if len(fes) == 1 {
		return &ValidationError{Path: info.jsonPath(fes[0].Namespace()), Reason: reasonFor(fes[0])}
	}
	errs := make([]error, len(fes))
	for i, fe := range fes {
		errs[i] = &ValidationError{Path: info.jsonPath(fe.Namespace()), Reason: reasonFor(fe)}
	}
	return errors.Join(errs...)
}

// jsonPath turns a validator namespace ("Plan.steps[2].title") into a JSON
// path ("steps[2].title").
func (info *typeInfo) jsonPath(ns string) string {
	// validator starts a namespace with the name of the struct type, when it
	// has one; dived slices and maps start with [i].
	if info.nsPrefix != "" {
		if strings.HasPrefix(ns, info.nsPrefix) {
			ns = ns[len(info.nsPrefix):]
		} else if i := strings.IndexByte(ns, '.'); i >= 0 && !strings.HasPrefix(ns, "[") {
			ns = ns[i+1:] // unexpected: drop the first segment anyway
		}
	}
	if strings.Contains(ns, embeddedMark) {
		ns = strings.ReplaceAll(ns, embeddedMark+".", "")
		ns = strings.TrimSuffix(strings.ReplaceAll(ns, "."+embeddedMark, ""), embeddedMark)
	}
	return ns
}
