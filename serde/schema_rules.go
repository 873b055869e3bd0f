package serde

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// rule is one validator tag with its parameter, such as max=160.
type rule struct{ name, param string }

// ruleSet is a field's `validate` tag, read for the parts with a JSON Schema
// form.
type ruleSet struct {
	required  bool     // `required`
	omitEmpty bool     // omitempty, omitnil or omitzero: empty values skip the rules
	rules     []rule   // the other rules before `dive`
	dive      *ruleSet // the rules after `dive`, for items and map values
}

// parseRules reads a validator tag. Alternatives ("a|b") and map key rules
// (keys … endkeys) have no simple schema form and are skipped.
func parseRules(tag string) ruleSet {
	if tag == "" || tag == "-" {
		return ruleSet{}
	}
	return parseRuleList(strings.Split(tag, ","))
}

func parseRuleList(parts []string) ruleSet {
	var rs ruleSet
	inKeys := false
	for i, p := range parts {
		switch {
		case inKeys:
			inKeys = p != "endkeys"
			continue
		case p == "keys":
			inKeys = true
			continue
		case p == "dive":
			d := parseRuleList(parts[i+1:])
			rs.dive = &d
			return rs
		case strings.Contains(p, "|"):
			continue
		}
		name, param, _ := strings.Cut(p, "=")
		switch name {
		case "required":
			rs.required = true
		case "omitempty", "omitnil", "omitzero":
			rs.omitEmpty = true
		case "":
		default:
			rs.rules = append(rs.rules, rule{name, param})
		}
	}
	return rs
}

// measure is what size rules measure on a Go type.
type measure uint8

const (
	measureNone   measure = iota
	measureLength         // string length in characters
	measureItems          // slice or array items
	measureProps          // map entries
	measureValue          // numeric value
)

func measureOf(t reflect.Type) measure {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	sh := shapeOf(t)
	switch t.Kind() {
	case reflect.String:
		if sh == shapeKind || sh == shapeText {
			return measureLength
		}
	case reflect.Slice, reflect.Array:
		if sh == shapeKind {
			return measureItems
		}
	case reflect.Map:
		if sh == shapeKind {
			return measureProps
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		if sh == shapeKind {
			return measureValue
		}
	}
	return measureNone
}

var formats = map[string]string{
	"email": "email", "url": "uri", "http_url": "uri", "https_url": "uri", "uri": "uri",
	"uuid": "uuid", "uuid3": "uuid", "uuid4": "uuid", "uuid5": "uuid", "uuid_rfc4122": "uuid",
	"hostname": "hostname", "hostname_rfc1123": "hostname", "ipv4": "ipv4", "ipv6": "ipv6",
}

var patterns = map[string]string{
	"ascii":      `^[\x00-\x7F]*$`,
	"printascii": `^[\x20-\x7E]*$`,
	"alphanum":   `^[a-zA-Z0-9]+$`,
	"alpha":      `^[a-zA-Z]+$`,
}

// apply adds the schema form of rs to s, the schema of Go type t.
func (rs ruleSet) apply(s *jsonschema.Schema, t reflect.Type) {
	if s == nil {
		return
	}
	m := measureOf(t)
	if t.Kind() == reflect.Pointer && !rs.omitEmpty && (rs.required || len(rs.rules) > 0 || rs.dive != nil) {
		// validator fails a nil pointer that has rules to check.
		removeNull(s)
	}
	if rs.required && m == measureLength {
		setMinInt(&s.MinLength, 1)
	}
	for _, r := range rs.rules {
		applyRule(s, m, r)
	}
	if rs.omitEmpty && s.Enum != nil && t.Kind() == reflect.Pointer && hasNull(s) {
		s.Enum = append(s.Enum, nil)
	}
	if rs.dive != nil {
		elem := t
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		switch {
		case m == measureItems:
			rs.dive.apply(s.Items, elem.Elem())
		case m == measureProps:
			rs.dive.apply(s.AdditionalProperties, elem.Elem())
		}
	}
}

func applyRule(s *jsonschema.Schema, m measure, r rule) {
	if f, ok := formats[r.name]; ok && m == measureLength {
		s.Format = f
		return
	}
	if p, ok := patterns[r.name]; ok && m == measureLength {
		if s.Pattern == "" {
			s.Pattern = p
		}
		return
	}
	switch r.name {
	case "oneof":
		s.Enum = oneOfValues(r.param, s)
		return
	case "unique":
		if m == measureItems {
			s.UniqueItems = true
		}
		return
	}
	if m == measureValue {
		v, err := strconv.ParseFloat(r.param, 64)
		if err != nil {
			return
		}
		switch r.name {
		case "min", "gte":
			setMinFloat(&s.Minimum, v)
		case "max", "lte":
			setMaxFloat(&s.Maximum, v)
		case "gt":
			s.ExclusiveMinimum = jsonschema.Ptr(v)
		case "lt":
			s.ExclusiveMaximum = jsonschema.Ptr(v)
		case "len", "eq":
			var c any = v
			s.Const = &c
		}
		return
	}
	n, err := strconv.Atoi(r.param)
	if err != nil || n < 0 {
		if m == measureLength && r.name == "eq" {
			var c any = r.param
			s.Const = &c
		}
		return
	}
	var lo, hi **int
	switch m {
	case measureLength:
		lo, hi = &s.MinLength, &s.MaxLength
	case measureItems:
		lo, hi = &s.MinItems, &s.MaxItems
	case measureProps:
		lo, hi = &s.MinProperties, &s.MaxProperties
	default:
		return
	}
	switch r.name {
	case "min", "gte":
		setMinInt(lo, n)
	case "max", "lte":
		setMaxInt(hi, n)
	case "gt":
		setMinInt(lo, n+1)
	case "lt":
		if n > 0 {
			setMaxInt(hi, n-1)
		}
	case "len":
		setMinInt(lo, n)
		setMaxInt(hi, n)
	case "eq":
		if m == measureLength {
			var c any = r.param
			s.Const = &c
		} else {
			setMinInt(lo, n)
			setMaxInt(hi, n)
		}
	}
}

// oneOfValues reads a oneof parameter as validator does (space separated,
// 'single quoted' values may hold spaces) and types the values for s.
func oneOfValues(param string, s *jsonschema.Schema) []any {
	var words []string
	for rest := strings.TrimSpace(param); rest != ""; rest = strings.TrimLeft(rest, " ") {
		if rest[0] == '\'' {
			if end := strings.IndexByte(rest[1:], '\''); end >= 0 {
				words = append(words, rest[1:1+end])
				rest = rest[2+end:]
				continue
			}
		}
		w, after, _ := strings.Cut(rest, " ")
		words, rest = append(words, w), after
	}
	kind := schemaKind(s)
	out := make([]any, 0, len(words))
	for _, w := range words {
		switch kind {
		case "integer":
			if n, err := strconv.ParseInt(w, 10, 64); err == nil {
				out = append(out, n)
			} else if u, err := strconv.ParseUint(w, 10, 64); err == nil {
				out = append(out, u)
			}
		case "number":
			if f, err := strconv.ParseFloat(w, 64); err == nil {
				out = append(out, f)
			}
		default:
			out = append(out, w)
		}
	}
	return out
}

// schemaKind is the JSON type of s other than null ("" when several or none).
func schemaKind(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	kind := ""
	for _, ty := range s.Types {
		if ty != "null" {
			if kind != "" {
				return ""
			}
			kind = ty
		}
	}
	return kind
}

func hasNull(s *jsonschema.Schema) bool {
	for _, ty := range s.Types {
		if ty == "null" {
			return true
		}
	}
	return false
}

// removeNull undoes makeNullable.
func removeNull(s *jsonschema.Schema) {
	if !hasNull(s) {
		return
	}
	var rest []string
	for _, ty := range s.Types {
		if ty != "null" {
			rest = append(rest, ty)
		}
	}
	if len(rest) == 1 {
		s.Type, s.Types = rest[0], nil
	} else {
		s.Types = rest
	}
}

func setMinInt(p **int, n int) {
	if *p == nil || **p < n {
		*p = jsonschema.Ptr(n)
	}
}

func setMaxInt(p **int, n int) {
	if *p == nil || **p > n {
		*p = jsonschema.Ptr(n)
	}
}

func setMinFloat(p **float64, v float64) {
	if *p == nil || **p < v || math.IsNaN(**p) {
		*p = jsonschema.Ptr(v)
	}
}

func setMaxFloat(p **float64, v float64) {
	if *p == nil || **p > v || math.IsNaN(**p) {
		*p = jsonschema.Ptr(v)
	}
}
