package serde

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// evens is a slice type that checks itself: every number must be even.
type evens []int

func (e evens) Validate() error {
	var errs []error
	for i, n := range e {
		if n%2 != 0 {
			errs = append(errs, &ValidationError{Path: fmt.Sprintf("[%d]", i), Reason: "must be even"})
		}
	}
	return errors.Join(errs...)
}

// window checks itself with a pointer receiver, after its tags.
type window struct {
	From  int `json:"from" validate:"min=0"`
	Until int `json:"until"`
}

var windowChecks int

func (w *window) Validate() error {
	windowChecks++
	if w.Until < w.From {
		return &ValidationError{Path: "until", Reason: "must not be before from"}
	}
	return nil
}

func TestDecodeCallsValidate(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		decode     func([]byte) (any, error)
		want       string
	}{
		{"Decode, a slice type", `[2, 3, 4, 5]`, func(b []byte) (any, error) { return Decode[evens](b) }, "[1]: must be even\n[3]: must be even"},
		{"DecodeValue, a slice type", `[1]`, func(b []byte) (any, error) { return DecodeValue(b, reflect.TypeFor[evens]()) }, "[0]: must be even"},
		{"DecodeInto, a slice type", `[7]`, func(b []byte) (any, error) { var e evens; return e, DecodeInto(b, &e) }, "[0]: must be even"},
		{"Decode, a pointer receiver", `{"from": 5, "until": 2}`, func(b []byte) (any, error) { return Decode[window](b) }, "until: must not be before from"},
		{"DecodeValue, a pointer receiver", `{"from": 5, "until": 2}`, func(b []byte) (any, error) { return DecodeValue(b, reflect.TypeFor[window]()) }, "until: must not be before from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.decode([]byte(tc.data))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			var ve *ValidationError
			assert.ErrorAs(t, err, &ve)
		})
	}
	got, err := Decode[evens]([]byte(`[2, 4]`))
	require.NoError(t, err)
	assert.Equal(t, evens{2, 4}, got)
}

// Validate runs only once strict decoding and the tags passed.
func TestValidateRunsAfterTheTags(t *testing.T) {
	windowChecks = 0
	_, err := Decode[window]([]byte(`{"from": -1, "until": -5}`))
	assert.EqualError(t, err, "from: must be at least 0")
	_, err = Decode[window]([]byte(`{"from": 1, "extra": 2}`))
	assert.Error(t, err)
	assert.Equal(t, 0, windowChecks)
	_, err = Decode[window]([]byte(`{"from": 1, "until": 2}`))
	require.NoError(t, err)
	assert.Equal(t, 1, windowChecks)
}
