package openai

import (
	"slices"
	"strings"
)

// mergeAllOf replaces o's allOf, which strict mode refuses, by its branches
// merged into o, in place: their properties join o's (a property declared
// in both is merged the same way), their required names join o's, and any
// other keyword o does not have is taken from the first branch that has
// it. Where o or an earlier branch already has a keyword, its value stays:
// strict mode has no way to send both, and the first is usually the more
// specific (the parent's own description, say). A branch that is a local
// reference ({"$ref": "#/$defs/X"}) is merged as a copy of X; definitions
// stay where the references expect them. An allOf that holds one
// reference and nothing else becomes that reference (see loneRef).
//
// A reference to a definition already being merged around o (a recursive
// type) is not copied again, which would never end: it is kept as o's
// "$ref" when o has none, and otherwise left out; one already merged into o
// itself (an allOf that refers to itself) adds nothing more and is left
// out.
//
// References are resolved in pristine, a copy of the schema as given, since
// the schema itself is being rewritten. inlining holds the references being
// merged around o; mergeAllOf adds the ones it copies and returns them, for
// the caller to remove once o's subtree is rewritten.
func mergeAllOf(o *object, pristine *object, inlining map[string]bool) (added []string) {
	if ref, ok := loneRef(o); ok {
		o.rename("allOf", "$ref")
		o.set("$ref", ref)
		return nil
	}
	for o.has("allOf") { // a merged branch may bring an allOf of its own
		branches, _ := o.get("allOf").([]any)
		o.del("allOf")
		for _, b := range branches {
			bo, ok := b.(*object)
			if !ok {
				continue // true adds nothing; false cannot be sent in strict mode either
			}
			if ref, ok := bo.get("$ref").(string); ok {
				target, isObject := resolveRef(bo, pristine).(*object)
				switch {
				case slices.Contains(added, ref):
				case inlining[ref]:
					if !o.has("$ref") {
						o.set("$ref", ref)
					}
				case isObject && strings.HasPrefix(ref, "#"):
					inlining[ref] = true
					added = append(added, ref)
					mergeSchema(o, cloneValue(target).(*object))
				}
				bo = cloneValue(bo).(*object)
				bo.del("$ref")
			}
			mergeSchema(o, bo)
		}
	}
	return added
}

// annotations are the keywords that describe a schema without
// constraining it; strict mode accepts them beside a $ref.
var annotations = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

// loneRef reports the reference of o's allOf when it is o's only
// constraint: {"description": …, "allOf": [{"$ref": R}]}, which older
// schema generators write for a described reference. Such a node is sent
// as {"description": …, "$ref": R} instead of merging a copy of R, so
// schemas stay as small as they were and recursive types keep working.
func loneRef(o *object) (string, bool) {
	branches, ok := o.get("allOf").([]any)
	if !ok || len(branches) != 1 {
		return "", false
	}
	b, ok := branches[0].(*object)
	if !ok || len(b.keys) != 1 {
		return "", false
	}
	ref, ok := b.get("$ref").(string)
	if !ok {
		return "", false
	}
	for _, k := range o.keys {
		if k != "allOf" && !annotations[k] {
			return "", false
		}
	}
	return ref, true
}

// mergeSchema merges the keywords of src into dst as mergeAllOf describes.
func mergeSchema(dst, src *object) {
	for _, k := range src.keys {
		v := src.vals[k]
		switch k {
		case "$defs", "definitions", "$schema", "$id":
			// Definitions stay where the references expect them.
		case "properties":
			from, ok := v.(*object)
			if !ok {
				continue
			}
			into, ok := dst.get(k).(*object)
			if !ok {
				into = newObject()
				dst.set(k, into)
			}
			for _, name := range from.keys {
				sub := from.vals[name]
				have, ok := into.get(name).(*object)
				if subObject, isObject := sub.(*object); ok && isObject {
					mergeSchema(have, subObject)
				} else if !into.has(name) {
					into.set(name, sub)
				}
			}
		case "required":
			names, _ := dst.get(k).([]any)
			seen := stringSet(names)
			for _, name := range asList(v) {
				if s, ok := name.(string); ok && !seen[s] {
					seen[s] = true
					names = append(names, s)
				}
			}
			dst.set(k, names)
		default:
			if !dst.has(k) {
				dst.set(k, v)
			}
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// cloneValue returns a deep copy of a value built by parseOrdered.
func cloneValue(v any) any {
	switch t := v.(type) {
	case *object:
		c := &object{keys: append([]string(nil), t.keys...), vals: make(map[string]any, len(t.vals))}
		for k, e := range t.vals {
			c.vals[k] = cloneValue(e)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = cloneValue(e)
		}
		return c
	}
	return v
}
