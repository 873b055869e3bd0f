package openai

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	gopenai "github.com/sashabaranov/go-openai"

	"github.com/offshoot-dev/offshoot/model"
)

// responseFormat builds response_format for o: json_schema with o's
// schema, rewritten for strict mode when o.Strict (see makeStrict). A schema
// whose root is an array is sent as an object whose "items" property holds
// the array, since OpenAI accepts only an object at the root; the mapping
// returned takes the array out of the answer again.
func responseFormat(o *model.OutputSpec) (*gopenai.ChatCompletionResponseFormat, *outputMapping, error) {
	s, err := parseOrdered(o.Schema)
	if err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	root, ok := s.(*object)
	if !ok {
		return nil, nil, fmt.Errorf("output schema: want a JSON object (a schema), got %s", kindOf(s))
	}
	out := &outputMapping{}
	schema := json.RawMessage(o.Schema)
	if o.Strict || root.get("type") == "array" {
		if o.Strict {
			out.schema, _ = parseOrdered(o.Schema) // a pristine copy: root is rewritten below
		}
		if root.get("type") == "array" {
			root, out.wrapped = wrapItems(root), true
		}
		if o.Strict {
			makeStrict(root)
		}
		if schema, err = marshalOrdered(root); err != nil {
			return nil, nil, fmt.Errorf("output schema: %w", err)
		}
	}
	if out.schema == nil && !out.wrapped {
		out = nil
	}
	return &gopenai.ChatCompletionResponseFormat{
		Type: gopenai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &gopenai.ChatCompletionResponseFormatJSONSchema{
			Name:        schemaName(o.Name),
			Description: o.Description,
			Schema:      schema,
			Strict:      o.Strict,
		},
	}, out, nil
}

// wrapItems returns an object schema whose one required property "items"
// is the array schema arr. Definitions ($defs, definitions) and $schema move
// to the new root, where the references inside arr expect them.
func wrapItems(arr *object) *object {
	w := newObject()
	if v, ok := arr.vals["$schema"]; ok {
		w.set("$schema", v)
		arr.del("$schema")
	}
	w.set("type", "object")
	props := newObject()
	props.set("items", arr)
	w.set("properties", props)
	w.set("required", []any{"items"})
	w.set("additionalProperties", false)
	for _, key := range []string{"$defs", "definitions"} {
		if v, ok := arr.vals[key]; ok {
			w.set(key, v)
			arr.del(key)
		}
	}
	return w
}

// makeStrict rewrites a JSON Schema, in place, for OpenAI's strict
// structured output, which requires every object to list all of its
// properties as required and to forbid additional properties. An optional
// property becomes required and nullable: "type": "string" becomes
// ["string", "null"] (an enum gains null too), and a schema without a type
// (a $ref, an anyOf, a const) is wrapped in {"anyOf": [schema, {"type":
// "null"}]}. Objects that do not say otherwise get "additionalProperties":
// false. An allOf is merged into its parent (see mergeAllOf) and a oneOf is
// sent as anyOf, the only composition strict mode accepts; the other
// keywords strict mode refuses are moved into the description (see relax).
// The rewrite recurses through properties, items, prefixItems, anyOf, $defs
// and definitions. Key order is preserved.
//
// The answer the model gives for the rewritten schema is mapped back with
// stripNulls using the original schema.
func makeStrict(root any) {
	pristine, _ := cloneValue(root).(*object)
	strictNode(root, pristine, map[string]bool{})
}

// strictNode rewrites node as makeStrict says; pristine is the whole schema
// as given and inlining holds the references mergeAllOf is merging around
// node.
func strictNode(node any, pristine *object, inlining map[string]bool) {
	o, ok := node.(*object)
	if !ok {
		return
	}
	for _, ref := range mergeAllOf(o, pristine, inlining) {
		defer delete(inlining, ref)
	}
	if o.has("oneOf") { // exactly one branch or at least one: the same to a model choosing one
		if o.has("anyOf") {
			o.del("oneOf") // both would need an allOf, which strict mode refuses too
		} else {
			o.rename("oneOf", "anyOf")
		}
	}
	relax(o)
	if props, ok := o.get("properties").(*object); ok {
		required := stringSet(o.get("required"))
		all := make([]any, 0, len(props.keys))
		for _, k := range props.keys {
			strictNode(props.vals[k], pristine, inlining)
			if !required[k] {
				props.vals[k] = nullable(props.vals[k])
			}
			all = append(all, k)
		}
		o.set("required", all)
		if !o.has("additionalProperties") {
			o.set("additionalProperties", false)
		}
	} else if o.get("type") == "object" && !o.has("additionalProperties") {
		o.set("additionalProperties", false)
	}
	for _, key := range []string{"items", "additionalProperties"} {
		strictNode(o.get(key), pristine, inlining)
	}
	for _, key := range []string{"anyOf", "prefixItems"} {
		if arr, ok := o.get(key).([]any); ok {
			for _, sub := range arr {
				strictNode(sub, pristine, inlining)
			}
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := o.get(key).(*object); ok {
			for _, k := range defs.keys {
				strictNode(defs.vals[k], pristine, inlining)
			}
		}
	}
}

// nullable returns a schema that also accepts null.
func nullable(node any) any {
	o, ok := node.(*object)
	if !ok || acceptsNull(o) {
		return node // true/false schemas and nullable ones stay as they are
	}
	addNullToEnum := func() {
		if enum, ok := o.get("enum").([]any); ok && !slices.Contains(enum, nil) {
			o.set("enum", append(enum, nil))
		}
	}
	switch t := o.get("type").(type) {
	case string:
		if !o.has("const") {
			o.set("type", []any{t, "null"})
			addNullToEnum()
			return o
		}
	case []any:
		if !o.has("const") {
			o.set("type", append(t, "null"))
			addNullToEnum()
			return o
		}
	}
	if arr, ok := o.get("anyOf").([]any); ok && len(o.keys) == 1 {
		o.set("anyOf", append(arr, nullSchema()))
		return o
	}
	w := newObject()
	w.set("anyOf", []any{o, nullSchema()})
	return w
}

func nullSchema() *object {
	n := newObject()
	n.set("type", "null")
	return n
}

func acceptsNull(o *object) bool {
	switch t := o.get("type").(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if arr, ok := o.get(key).([]any); ok {
			for _, sub := range arr {
				if so, ok := sub.(*object); ok && acceptsNull(so) {
					return true
				}
			}
		}
	}
	return false
}

// stripNulls maps a strict-mode answer back to the original schema: a key
// whose value is null and which the original schema did not require is
// removed, at every depth. The answer is modified in place and returned.
func stripNulls(schema any, root *object, value any) any {
	s := resolveRef(schema, root)
	switch v := value.(type) {
	case *object:
		for _, k := range slices.Clone(v.keys) {
			sub, required, known := propertyOf(s, root, k)
			if !known {
				continue
			}
			if v.vals[k] == nil && !required {
				v.del(k)
				continue
			}
			v.vals[k] = stripNulls(sub, root, v.vals[k])
		}
	case []any:
		so, _ := s.(*object)
		for i := range v {
			var sub any
			if so != nil {
				if prefix, ok := so.get("prefixItems").([]any); ok && i < len(prefix) {
					sub = prefix[i]
				} else {
					sub = so.get("items")
				}
			}
			v[i] = stripNulls(sub, root, v[i])
		}
	}
	return value
}

// propertyOf finds the schema of property key in s or, failing that, in
// the first branch of its allOf/anyOf/oneOf that declares it.
func propertyOf(s any, root *object, key string) (sub any, required, known bool) {
	o, ok := resolveRef(s, root).(*object)
	if !ok {
		return nil, false, false
	}
	if props, ok := o.get("properties").(*object); ok && props.has(key) {
		return props.get(key), stringSet(o.get("required"))[key], true
	}
	for _, comb := range []string{"allOf", "anyOf", "oneOf"} {
		if arr, ok := o.get(comb).([]any); ok {
			for _, branch := range arr {
				if sub, required, known := propertyOf(branch, root, key); known {
					return sub, required, true
				}
			}
		}
	}
	return nil, false, false
}

// resolveRef follows local references (#/$defs/X, #/definitions/X).
func resolveRef(s any, root *object) any {
	for range 32 {
		o, ok := s.(*object)
		if !ok {
			return s
		}
		ref, ok := o.get("$ref").(string)
		if !ok || root == nil || !strings.HasPrefix(ref, "#") {
			return s
		}
		var target any = root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
			part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
			to, ok := target.(*object)
			if !ok {
				return nil
			}
			target = to.get(part)
		}
		s = target
	}
	return s
}

func stringSet(v any) map[string]bool {
	arr, _ := v.([]any)
	set := make(map[string]bool, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			set[s] = true
		}
	}
	return set
}

func kindOf(v any) string {
	switch v.(type) {
	case *object:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}
