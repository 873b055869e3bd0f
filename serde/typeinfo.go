package serde

import (
	"reflect"
	"sync"
	"time"
)

// validateMode says how Validate looks into a type.
type validateMode uint8

const (
	validateNone   validateMode = iota // no validate tags can be reached
	validateStruct                     // a struct (behind ptrDepth pointers)
	validateDive                       // a slice, array or map of structs
)

// typeInfo caches, per Go type, the reflection work Decode and Validate
// need, so that a call does no reflection beyond a map lookup.
type typeInfo struct {
	typ        reflect.Type
	rejectNull bool         // the type is a struct behind zero or more pointers
	mode       validateMode // what Validate does with it
	ptrDepth   int          // pointers in front of the struct (validateStruct)
	nsPrefix   string       // "Name." that validator puts in front of namespaces, if any
	// selfValidating: a pointer to the type implements selfValidator.
	selfValidating bool
	keys           *keyNode // the plan of the key check; nil: nothing to check
}

var typeInfoCache sync.Map // reflect.Type -> *typeInfo

// infoOf returns the cached typeInfo for t.
func infoOf(t reflect.Type) *typeInfo {
	if v, ok := typeInfoCache.Load(t); ok {
		return v.(*typeInfo)
	}
	info := computeInfo(t)
	v, _ := typeInfoCache.LoadOrStore(t, info)
	return v.(*typeInfo)
}

var timeType = reflect.TypeFor[time.Time]()

var selfValidatorType = reflect.TypeFor[selfValidator]()

func computeInfo(t reflect.Type) *typeInfo {
	info := &typeInfo{typ: t, selfValidating: reflect.PointerTo(t).Implements(selfValidatorType), keys: keyPlan(t)}
	base, depth := t, 0
	for base.Kind() == reflect.Pointer {
		base, depth = base.Elem(), depth+1
	}
	switch base.Kind() {
	case reflect.Struct:
		info.rejectNull = base != timeType
		if base != timeType && hasValidateTags(base, map[reflect.Type]bool{}) {
			info.mode, info.ptrDepth = validateStruct, depth
			if base.Name() != "" {
				info.nsPrefix = base.Name() + "."
			}
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		elem := base.Elem()
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if elem.Kind() == reflect.Struct && elem != timeType && hasValidateTags(elem, map[reflect.Type]bool{}) {
			info.mode = validateDive
		}
	}
	return info
}

// hasValidateTags reports whether validating a value of struct type t can
// fail: whether t or a struct reachable through its fields (validator
// descends into struct and pointer-to-struct fields by itself) has a
// `validate` tag.
func hasValidateTags(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if tag := f.Tag.Get("validate"); tag != "" && tag != "-" {
			return true
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != timeType && hasValidateTags(ft, seen) {
			return true
		}
	}
	return false
}
