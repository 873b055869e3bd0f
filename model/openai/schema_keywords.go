package openai

import (
	"encoding/json"
	"fmt"
	"strings"
)

// strictFormats are the string formats strict mode accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// refused are the keywords OpenAI's strict mode rejects, besides allOf and
// oneOf, which makeStrict rewrites. Its "supported schemas" list keeps
// pattern, the formats above, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, minItems, maxItems, enum, const, anyOf,
// $ref and $defs; it names allOf, not, if/then/else, dependentRequired and
// dependentSchemas as refused, and its API answers "'default' is not
// permitted".
var refused = map[string]bool{
	"minLength": true, "maxLength": true, "default": true, "contentSchema": true,
	"uniqueItems": true, "contains": true, "minContains": true, "maxContains": true, "unevaluatedItems": true,
	"minProperties": true, "maxProperties": true, "patternProperties": true, "propertyNames": true,
	"unevaluatedProperties": true, "dependentRequired": true, "dependentSchemas": true, "dependencies": true,
	"not": true, "if": true, "then": true, "else": true,
}

// relax removes from the schema node o the keywords strict mode refuses and
// says what they asked for, in words, in its description, so the model
// still reads the constraint: {"type": "string", "minLength": 1} becomes
// {"type": "string", "description": "at least 1 character"}, and a
// description already there keeps its text, followed by the constraints in
// parentheses.
func relax(o *object) {
	var words []string
	for _, k := range append([]string(nil), o.keys...) {
		v := o.vals[k]
		if k == "format" {
			if f, ok := v.(string); !ok || strictFormats[f] {
				continue
			}
		} else if !refused[k] {
			continue
		}
		if w := constraintWords(k, v); w != "" {
			words = append(words, w)
		}
		o.del(k)
	}
	if len(words) == 0 {
		return
	}
	text := strings.Join(words, "; ")
	if d, ok := o.get("description").(string); ok && d != "" {
		text = d + " (" + text + ")"
	}
	o.set("description", text)
}

// constraintWords says in words what keyword k with value v asks for.
func constraintWords(k string, v any) string {
	n, isNumber := v.(json.Number)
	count := func(bound, unit string) string {
		if n == "1" {
			return bound + " 1 " + unit
		}
		return bound + " " + string(n) + " " + unit + "s"
	}
	switch {
	case k == "minLength" && isNumber:
		return count("at least", "character")
	case k == "maxLength" && isNumber:
		return count("at most", "character")
	case k == "minProperties" && isNumber:
		return count("at least", "key")
	case k == "maxProperties" && isNumber:
		return count("at most", "key")
	case k == "minContains" && isNumber:
		return count("at least", "matching item")
	case k == "maxContains" && isNumber:
		return count("at most", "matching item")
	case k == "uniqueItems":
		if v == true {
			return "no duplicate items"
		}
		return ""
	case k == "format":
		return "in " + v.(string) + " format"
	case k == "default":
		if v == nil {
			return "" // a null default says no more than the nullable type does
		}
		return "default: " + jsonText(v)
	case k == "not":
		return notWords(v)
	case k == "dependentRequired" || k == "dependencies":
		return dependencyWords(v)
	case k == "if" || k == "then" || k == "else" || k == "dependentSchemas" || k == "contentSchema":
		// A schema that applies under a condition, or to what a string
		// holds, does not read sensibly as words: it is left out, and the
		// answer is not held to it.
		return ""
	}
	return k + " " + jsonText(v)
}

// notWords says what a "not" schema excludes when it excludes values: a
// constant (not "root") or a list of them (none of "a", "b"). Any other
// "not" (a type, a pattern, a shape) does not read sensibly as words and is
// left out.
func notWords(v any) string {
	o, ok := v.(*object)
	if !ok || len(o.keys) != 1 {
		return ""
	}
	switch o.keys[0] {
	case "const":
		return "not " + jsonText(o.get("const"))
	case "enum":
		values, ok := o.get("enum").([]any)
		if !ok || len(values) == 0 {
			return ""
		}
		texts := make([]string, len(values))
		for i, e := range values {
			texts[i] = jsonText(e)
		}
		return "none of " + strings.Join(texts, ", ")
	}
	return ""
}

// dependencyWords says what dependentRequired (or draft-07 dependencies)
// asks: which properties must be given when another one is. Dependencies
// given as schemas do not read sensibly as words and are left out.
func dependencyWords(v any) string {
	o, ok := v.(*object)
	if !ok {
		return ""
	}
	var parts []string
	for _, name := range o.keys {
		var needed []string
		for _, e := range asList(o.vals[name]) {
			if s, ok := e.(string); ok {
				needed = append(needed, jsonText(s))
			}
		}
		if len(needed) == 0 {
			continue
		}
		list := needed[len(needed)-1]
		if len(needed) > 1 {
			list = strings.Join(needed[:len(needed)-1], ", ") + " and " + list
		}
		parts = append(parts, "when "+jsonText(name)+" is given, "+list+" must be given too")
	}
	return strings.Join(parts, "; ")
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	b, err := marshalOrdered(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
