package serde

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/go-playground/validator/v10"
)

// reasonFor words one validator failure as a ValidationError reason.
func reasonFor(fe validator.FieldError) string {
	tag, param := fe.Tag(), fe.Param()
	switch fe.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Invalid:
		// validator checks rules on a nil pointer or interface only to
		// fail them: there is no value.
		return "is required"
	}
	size := sizeKindOf(fe.Kind(), fe.Type())
	switch tag {
	case "required", "required_if", "required_unless", "required_with", "required_with_all",
		"required_without", "required_without_all":
		return "is required"
	case "min", "gte":
		if param == "" && size == sizeTime {
			return "must not be in the past"
		}
		return bound(size, "at least", "at least", param)
	case "max", "lte":
		if param == "" && size == sizeTime {
			return "must not be in the future"
		}
		return bound(size, "at most", "at most", param)
	case "gt":
		if param == "" && size == sizeTime {
			return "must be in the future"
		}
		return bound(size, "greater than", "more than", param)
	case "lt":
		if param == "" && size == sizeTime {
			return "must be in the past"
		}
		return bound(size, "less than", "fewer than", param)
	case "len":
		return bound(size, "exactly", "exactly", param)
	case "eq":
		if size == sizeText || size == sizeNone {
			return fmt.Sprintf("must be %q", param)
		}
		return bound(size, "exactly", "exactly", param)
	case "ne":
		return fmt.Sprintf("must not be %s", param)
	case "oneof":
		return "must be one of: " + param
	case "ascii":
		return "must be ASCII"
	case "printascii":
		return "must be printable ASCII"
	case "alphanum":
		return "must contain only ASCII letters and digits"
	case "alpha":
		return "must contain only ASCII letters"
	case "numeric", "number":
		return "must be a number written as text"
	case "lowercase":
		return "must be lower case"
	case "uppercase":
		return "must be upper case"
	case "email":
		return "must be a valid email address"
	case "url", "http_url", "https_url":
		return "must be a valid URL"
	case "uri":
		return "must be a valid URI"
	case "uuid", "uuid_rfc4122":
		return "must be a valid UUID"
	case "uuid3", "uuid4", "uuid5", "uuid3_rfc4122", "uuid4_rfc4122", "uuid5_rfc4122":
		return "must be a valid UUID version " + tag[4:5]
	case "hostname", "hostname_rfc1123", "fqdn":
		return "must be a valid host name"
	case "ip", "ipv4", "ipv6":
		return "must be a valid IP address"
	case "datetime":
		return fmt.Sprintf("must be a date-time in the layout %q", param)
	case "unique":
		return "must not contain duplicates"
	case "contains":
		return fmt.Sprintf("must contain %q", param)
	case "excludes":
		return fmt.Sprintf("must not contain %q", param)
	case "startswith":
		return fmt.Sprintf("must start with %q", param)
	case "endswith":
		return fmt.Sprintf("must end with %q", param)
	case "boolean":
		return "must be true or false"
	case "json":
		return "must be valid JSON"
	}
	if param != "" {
		return fmt.Sprintf("must satisfy the %q rule", tag+"="+param)
	}
	return fmt.Sprintf("must satisfy the %q rule", tag)
}

// sizeKind is what a validator size rule (min, max, len, …) measures.
type sizeKind uint8

const (
	sizeNone   sizeKind = iota // something else: the rule compares values
	sizeText                   // a string: its length in characters
	sizeItems                  // a slice, array or map: its number of items
	sizeNumber                 // a number: its value
	sizeTime                   // a time.Time: compared with now or a duration
)

func sizeKindOf(k reflect.Kind, t reflect.Type) sizeKind {
	switch k {
	case reflect.String:
		return sizeText
	case reflect.Slice, reflect.Array, reflect.Map:
		return sizeItems
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return sizeNumber
	case reflect.Struct:
		if t != nil && (t == timeType || t.ConvertibleTo(timeType)) {
			return sizeTime
		}
	}
	return sizeNone
}

// bound words a size rule: numberWord for numbers ("at least 3"), countWord
// for lengths ("at least 3 characters", "more than 2 items").
func bound(size sizeKind, numberWord, countWord, param string) string {
	switch size {
	case sizeText:
		return fmt.Sprintf("must be %s %s %s", countWord, param, plural(param, "character"))
	case sizeItems:
		return fmt.Sprintf("must have %s %s %s", countWord, param, plural(param, "item"))
	case sizeTime:
		return fmt.Sprintf("must be %s %s from now", numberWord, param)
	}
	return fmt.Sprintf("must be %s %s", numberWord, param)
}

func plural(n, word string) string {
	if v, err := strconv.ParseFloat(n, 64); err == nil && v == 1 {
		return word
	}
	return word + "s"
}
