package openai

import (
	"encoding/json"
	"strings"
)

// strictFormats are the string formats strict mode accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// refused are the keywords OpenAI's strict mode rejects (its "supported
// schemas" list keeps pattern, the formats above, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, multipleOf, minItems and maxItems).
var refused = map[string]bool{
	"minLength": true, "maxLength": true,
	"uniqueItems": true, "contains": true, "minContains": true, "maxContains": true, "unevaluatedItems": true,
	"minProperties": true, "maxProperties": true, "patternProperties": true, "propertyNames": true,
	"unevaluatedProperties": true,
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
	}
	b, err := marshalOrdered(v)
	if err != nil {
		return k
	}
	return k + " " + string(b)
}
