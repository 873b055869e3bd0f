package serde

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidationErrorError(t *testing.T) {
	tests := []struct {
		err  ValidationError
		want string
	}{
		{ValidationError{Path: "steps[2].title", Reason: "is required"}, "steps[2].title: is required"},
		{ValidationError{Reason: "must be a JSON object, not null"}, "must be a JSON object, not null"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

type vRules struct {
	Name   string   `json:"name" validate:"required"`
	Short  string   `json:"short" validate:"min=2,max=4"`
	Code   string   `json:"code" validate:"len=3"`
	Count  int      `json:"count" validate:"min=1,max=10"`
	Items  []string `json:"items" validate:"min=1,max=2"`
	Pair   []int    `json:"pair" validate:"len=2"`
	Kind   string   `json:"kind" validate:"oneof=plan_step ad_hoc"`
	Path   string   `json:"path" validate:"ascii"`
	Label  string   `json:"label" validate:"printascii"`
	Ratio  float64  `json:"ratio" validate:"gt=0,lt=1"`
	Level  int      `json:"level" validate:"gte=1,lte=5"`
	Email  string   `json:"email" validate:"email"`
	Site   string   `json:"site" validate:"url"`
	ID     string   `json:"id" validate:"uuid"`
	Slug   string   `json:"slug" validate:"alphanum"`
	Color  string   `json:"color" validate:"hexcolor"`
	Prefix string   `json:"prefix" validate:"startswith=x-"`
	Ptr    *string  `json:"ptr" validate:"max=3"`
}

func validRules() vRules {
	p := "abc"
	return vRules{
		Name: "n", Short: "ab", Code: "abc", Count: 1, Items: []string{"a"}, Pair: []int{1, 2},
		Kind: "ad_hoc", Path: "/a/b", Label: "ok", Ratio: 0.5, Level: 3, Email: "a@b.co",
		Site: "https://example.com", ID: "3f1f7c1e-8f5d-4a8e-9b6a-2f1c3d4e5f60", Slug: "abc123",
		Color: "#fff", Prefix: "x-y", Ptr: &p,
	}
}

func TestValidateReasons(t *testing.T) {
	tests := []struct {
		name   string
		change func(*vRules)
		path   string
		reason string
	}{
		{"required", func(v *vRules) { v.Name = "" }, "name", "is required"},
		{"min string", func(v *vRules) { v.Short = "a" }, "short", "must be at least 2 characters"},
		{"max string", func(v *vRules) { v.Short = "abcde" }, "short", "must be at most 4 characters"},
		{"len string", func(v *vRules) { v.Code = "ab" }, "code", "must be exactly 3 characters"},
		{"min number", func(v *vRules) { v.Count = 0 }, "count", "must be at least 1"},
		{"max number", func(v *vRules) { v.Count = 11 }, "count", "must be at most 10"},
		{"min items", func(v *vRules) { v.Items = []string{} }, "items", "must have at least 1 item"},
		{"max items", func(v *vRules) { v.Items = []string{"a", "b", "c"} }, "items", "must have at most 2 items"},
		{"len items", func(v *vRules) { v.Pair = []int{1} }, "pair", "must have exactly 2 items"},
		{"oneof", func(v *vRules) { v.Kind = "other" }, "kind", "must be one of: plan_step ad_hoc"},
		{"ascii", func(v *vRules) { v.Path = "/ä" }, "path", "must be ASCII"},
		{"printascii", func(v *vRules) { v.Label = "tab\t" }, "label", "must be printable ASCII"},
		{"gt", func(v *vRules) { v.Ratio = 0 }, "ratio", "must be greater than 0"},
		{"lt", func(v *vRules) { v.Ratio = 1 }, "ratio", "must be less than 1"},
		{"gte", func(v *vRules) { v.Level = 0 }, "level", "must be at least 1"},
		{"lte", func(v *vRules) { v.Level = 6 }, "level", "must be at most 5"},
		{"email", func(v *vRules) { v.Email = "nope" }, "email", "must be a valid email address"},
		{"url", func(v *vRules) { v.Site = "not a url" }, "site", "must be a valid URL"},
		{"uuid", func(v *vRules) { v.ID = "123" }, "id", "must be a valid UUID"},
		{"alphanum", func(v *vRules) { v.Slug = "a-b" }, "slug", "must contain only ASCII letters and digits"},
		{"alphanum empty", func(v *vRules) { v.Slug = "" }, "slug", "must contain only ASCII letters and digits"},
		{"fallback", func(v *vRules) { v.Color = "blue" }, "color", `must satisfy the "hexcolor" rule`},
		{"startswith", func(v *vRules) { v.Prefix = "y" }, "prefix", `must start with "x-"`},
		{"pointer value", func(v *vRules) { s := "abcd"; v.Ptr = &s }, "ptr", "must be at most 3 characters"},
		{"nil pointer", func(v *vRules) { v.Ptr = nil }, "ptr", "is required"},
	}
	require.NoError(t, Validate(validRules()))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := validRules()
			tt.change(&v)
			err := Validate(&v)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.path, ve.Path)
			assert.Equal(t, tt.reason, ve.Reason)
			assert.Equal(t, tt.path+": "+tt.reason, err.Error())
		})
	}
}

type vStep struct {
	Title string `json:"title" validate:"required,max=5"`
}

type vMeta struct {
	Owner string `json:"owner" validate:"required"`
}

type vInner struct {
	Note string `json:"note" validate:"max=3"`
}

type vPlan struct {
	vMeta
	*vInner
	Named   vMeta            `json:"named"`
	Steps   []vStep          `json:"steps" validate:"dive"`
	ByKey   map[string]vStep `json:"by_key" validate:"dive"`
	Tags    []string         `json:"tags" validate:"dive,min=2"`
	Nested  *vStep           `json:"nested"`
	Ignored string           `json:"-" validate:"max=1"`
	NoTag   string           `validate:"max=1"`
}

func TestValidatePaths(t *testing.T) {
	ok := func() vPlan {
		return vPlan{vMeta: vMeta{Owner: "o"}, vInner: &vInner{Note: "n"}, Named: vMeta{Owner: "o"},
			Steps: []vStep{{"a"}, {"b"}}, ByKey: map[string]vStep{"k": {"c"}}, Tags: []string{"ab"}}
	}
	tests := []struct {
		name   string
		change func(*vPlan)
		path   string
	}{
		{"embedded fields are promoted", func(p *vPlan) { p.Owner = "" }, "owner"},
		{"embedded pointer fields are promoted", func(p *vPlan) { p.Note = "long" }, "note"},
		{"named struct", func(p *vPlan) { p.Named.Owner = "" }, "named.owner"},
		{"slice index", func(p *vPlan) { p.Steps[1].Title = "toolong" }, "steps[1].title"},
		{"map key", func(p *vPlan) { p.ByKey["k"] = vStep{} }, "by_key[k].title"},
		{"dive on strings", func(p *vPlan) { p.Tags = []string{"ab", "c"} }, "tags[1]"},
		{"pointer to struct", func(p *vPlan) { p.Nested = &vStep{} }, "nested.title"},
		{"json dash uses the Go name", func(p *vPlan) { p.Ignored = "xx" }, "Ignored"},
		{"no json tag uses the Go name", func(p *vPlan) { p.NoTag = "xx" }, "NoTag"},
	}
	p := ok()
	require.NoError(t, Validate(&p))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok()
			tt.change(&p)
			var ve *ValidationError
			require.ErrorAs(t, Validate(p), &ve)
			assert.Equal(t, tt.path, ve.Path)
		})
	}
}

func TestValidateJoinsSeveralFailures(t *testing.T) {
	p := vPlan{Steps: []vStep{{"toolong"}, {""}}, Tags: []string{"x"}}
	err := Validate(&p)
	require.Error(t, err)

	var first *ValidationError
	require.ErrorAs(t, err, &first)
	assert.Equal(t, "owner", first.Path)

	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "several failures are joined")
	var got []string
	for _, e := range joined.Unwrap() {
		var ve *ValidationError
		require.ErrorAs(t, e, &ve)
		got = append(got, ve.Error())
	}
	assert.Equal(t, []string{
		"owner: is required",
		"named.owner: is required",
		"steps[0].title: must be at most 5 characters",
		"steps[1].title: is required",
		"tags[0]: must be at least 2 characters",
	}, got)
}

type vBox[T any] struct {
	V T `json:"v" validate:"required"`
}

func TestValidateShapes(t *testing.T) {
	bad := vStep{Title: ""}
	good := vStep{Title: "ok"}
	pBad := &bad
	type noTags struct{ A string }
	tests := []struct {
		name string
		v    any
		path string // "" means no error expected
	}{
		{"nil", nil, ""},
		{"nil pointer", (*vStep)(nil), ""},
		{"struct value", bad, "title"},
		{"pointer", &bad, "title"},
		{"pointer to pointer", &pBad, "title"},
		{"nil pointer to pointer", new(*vStep), ""},
		{"valid", &good, ""},
		{"string", "hello", ""},
		{"int pointer", new(int), ""},
		{"struct without tags", noTags{}, ""},
		{"slice of structs", []vStep{good, bad}, "[1].title"},
		{"slice of pointers", []*vStep{&bad}, "[0].title"},
		{"pointer to slice", &[]vStep{bad}, "[0].title"},
		{"map of structs", map[string]vStep{"x": bad}, "[x].title"},
		{"slice of strings", []string{"a"}, ""},
		{"generic struct", vBox[vStep]{V: vStep{Title: "toolong"}}, "v.title"},
		{"generic struct of a qualified type", &vBox[*vBox[string]]{V: &vBox[string]{}}, "v.v"},
		{"anonymous struct", struct {
			S vStep `json:"s"`
		}{}, "s.title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.v)
			if tt.path == "" {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.path, ve.Path)
		})
	}
}

func TestValidationErrorWrapped(t *testing.T) {
	err := fmt.Errorf("Tool validation failed: ls: %w", Validate(vStep{}))
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, "Tool validation failed: ls: title: is required", err.Error())
}
