package serde

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// jsonField is one member of a JSON object as encoding/json maps it to a
// field of a Go struct: promoted through embedded structs, renamed by the
// `json` tag, with hidden and ambiguous names already removed.
type jsonField struct {
	name      string              // JSON member name
	tagged    bool                // name came from a json tag
	index     []int               // field index path from the outer struct
	field     reflect.StructField // the Go field (its Type is not dereferenced)
	omitEmpty bool                // `omitempty` or `omitzero`: optional in a schema
	quoted    bool                // `,string` on a scalar: encoded as a JSON string
}

// structFields describes how encoding/json sees one struct type.
type structFields struct {
	list    []jsonField    // in Go field order
	byName  map[string]int // exact JSON name to position in list
	allowed string         // "a, b, c" for error messages
}

var structFieldsCache sync.Map // reflect.Type -> *structFields

// fieldsOf returns the JSON members of struct type t, computed once per type
// with the rules of encoding/json (typeFields): exported fields, embedded
// structs promoted unless tagged with a name, `json:"-"` skipped, and a name
// claimed at the shallowest depth (a tagged field winning a tie) or dropped
// when ambiguous.
func fieldsOf(t reflect.Type) *structFields {
	if v, ok := structFieldsCache.Load(t); ok {
		return v.(*structFields)
	}
	sf := computeFields(t)
	v, _ := structFieldsCache.LoadOrStore(t, sf)
	return v.(*structFields)
}

func computeFields(t reflect.Type) *structFields {
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var (
		fields             []jsonField
		current            []queued
		next               = []queued{{typ: t}}
		count, nextCount   map[reflect.Type]int
		visited            = map[reflect.Type]bool{}
		scalarKindsQuoting = func(k reflect.Kind) bool {
			switch k {
			case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
				reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
				return true
			}
			return false
		}
	)
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := range q.typ.NumField() {
				sf := q.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !isValidJSONName(name) {
					name = ""
				}
				index := append(slices.Clip(q.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{
						name:      cmp.Or(name, sf.Name),
						tagged:    name != "",
						index:     index,
						field:     sf,
						omitEmpty: hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
						quoted:    hasOption(opts, "string") && scalarKindsQuoting(ft.Kind()),
					}
					fields = append(fields, f)
					if count[q.typ] > 1 {
						// Several embedded instances at one depth: record a
						// duplicate so the name is dropped as ambiguous.
						fields = append(fields, f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index})
				}
			}
		}
	}

	slices.SortFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		run := fields[i:j]
		// The first of the run is the shallowest (tagged first); it wins
		// unless a second field ties with it on depth and taggedness.
		if len(run) == 1 || len(run[0].index) != len(run[1].index) || run[0].tagged != run[1].tagged {
			out = append(out, run[0])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })

	res := &structFields{list: out, byName: make(map[string]int, len(out))}
	names := make([]string, len(out))
	for i, f := range out {
		res.byName[f.name] = i
		names[i] = f.name
	}
	res.allowed = strings.Join(names, ", ")
	return res
}

// lookup finds the member whose exact JSON name is key. Unlike
// encoding/json, serde does not match names ignoring case (see checkKeys).
func (s *structFields) lookup(key string) (jsonField, bool) {
	if i, ok := s.byName[key]; ok {
		return s.list[i], true
	}
	return jsonField{}, false
}

// hasOption reports whether the comma-separated json tag options contain opt.
func hasOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == opt {
			return true
		}
	}
	return false
}

// isValidJSONName mirrors encoding/json's isValidTag: the names a json tag
// may give a field.
func isValidJSONName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// fieldByIndex is reflect.Value.FieldByIndex that stops at nil embedded
// pointers instead of panicking; ok is false when it had to stop.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
