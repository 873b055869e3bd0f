package serde

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type fuzzInner struct {
	X float64 `json:"x" validate:"gte=-1,lte=1"`
}

type fuzzParams struct {
	Name  string            `json:"name" validate:"required,max=20,printascii"`
	Count int               `json:"count,omitempty" validate:"gte=0,lte=100"`
	Kind  string            `json:"kind,omitempty" validate:"omitempty,oneof=a b"`
	Tags  []string          `json:"tags,omitempty" validate:"max=3,dive,min=1"`
	Inner *fuzzInner        `json:"inner,omitempty"`
	Meta  map[string]uint8  `json:"meta,omitempty"`
	Items []fuzzInner       `json:"items,omitempty" validate:"dive"`
	Extra map[string]string `json:"extra,omitempty" validate:"omitempty,max=2"`
}

// FuzzDecode checks that Decode never panics, that its errors are either
// *ValidationError values (alone or joined) or plain "serde: " errors, and
// that what it accepts survives a round trip.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a"}`, `{"name":"a","count":3,"kind":"b","tags":["x"],"inner":{"x":0.5}}`,
		`{"name":""}`, `{"name":"a","bogus":1}`, `{"name":"a"} x`, `{"name":1}`, `null`, ``, `{`,
		`{"name":"a","items":[{"x":2},{"x":"y"}]}`, `{"name":"a","meta":{"k":300}}`, `[]`, `"s"`,
		`{"name":"a","inner":null,"tags":null}`, `{"NAME":"a"}`, `{"name":"\u00e9"}`,
		`{"name":"a","name":"b"}`, `{"name":"a","meta":{"k":1,"k":2}}`, `{"name":"a","items":[{"X":1}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode[fuzzParams](data)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal %+v: %v", v, err)
		}
		if _, err := Decode[fuzzParams](again); err != nil {
			t.Fatalf("accepted %q but not its round trip %q: %v", data, again, err)
		}
	})
}

func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if _, ok := e.(*ValidationError); !ok {
				t.Fatalf("joined error holds a %T: %v", e, e)
			}
		}
		return
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		if ve.Reason == "" {
			t.Fatalf("validation error without a reason: %#v", ve)
		}
		return
	}
	if !strings.HasPrefix(err.Error(), "serde: ") {
		t.Fatalf("plain error without the serde prefix: %v", err)
	}
}

// FuzzCheckKeys checks that the key check ends without panicking on any
// bytes, valid JSON or not, and never refuses an object whose keys are
// exact and distinct.
func FuzzCheckKeys(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a"}`, `{"name":"a","name":"b"}`, `{"NAME":"a"}`, `{"name":"a","meta":{"k":1,"k":2}}`,
		`{"name":"\"}`, `{"na\u006de":"a"}`, `{"items":[{"x":1},{"X":1}]}`, `{"inner":{"x":[[[{}]]]}}`,
		`{"name":`, `{"name" "a"}`, `[[[[`, `"\`, `{"tags":["a",{"b":1,"b":2}]}`,
	} {
		f.Add([]byte(seed))
	}
	plan := infoOf(reflect.TypeFor[fuzzParams]()).keys
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkKeys(data, plan)
		if err == nil {
			return
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Reason == "" {
			t.Fatalf("want a *ValidationError with a reason, got %#v", err)
		}
		// What the check refuses, a generic decode sees as a repeated key
		// or a key that is not an exact member name.
		if ve.Reason != "appears twice" && !strings.HasPrefix(ve.Reason, "unknown field") {
			t.Fatalf("unexpected reason %q", ve.Reason)
		}
	})
}
