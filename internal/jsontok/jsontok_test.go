package jsontok

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tokens reads data to its end and describes each token as KIND@START-END.
func tokens(t *testing.T, data string) ([]string, error) {
	t.Helper()
	r := NewReader([]byte(data))
	var out []string
	for {
		tok, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		desc := tok.Kind.String() + "@" + strconv.Itoa(tok.Start) + "-" + strconv.Itoa(tok.End)
		if tok.Escaped {
			desc += "\\"
		}
		out = append(out, desc)
	}
}

func TestNextTokens(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty object", `{}`, []string{"{@0-1", "}@1-2"}},
		{"scalars", ` [1, -2.5e3, "s", true, false, null] `,
			[]string{"[@1-2", "number@2-3", "number@5-11", "string@13-16", "true@18-22", "false@24-29", "null@31-35", "]@35-36"}},
		{"keys and values", "{\"a\": \"b\",\n \"c\\n\": {}}",
			[]string{"{@0-1", "key@1-4", "string@6-9", "key@12-17\\", "{@19-20", "}@20-21", "}@21-22"}},
		{"a scalar alone", `"x"`, []string{"string@0-3"}},
		{"deep", strings.Repeat("[", 130) + strings.Repeat("]", 130), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tokens(t, tt.in)
			require.NoError(t, err)
			if tt.want != nil {
				assert.Equal(t, tt.want, got)
			} else {
				assert.Len(t, got, 260)
			}
		})
	}
}

// Malformed input gives Decoder.Token's error, word for word and at the
// same offset; what follows the value is ErrTrailing.
func TestNextErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		offset         int64 // of the *json.SyntaxError; -1 for other errors
	}{
		{"empty", ``, "EOF", -1},
		{"open object", `{"a":1`, "EOF", -1},
		{"cut string", `["abc`, "unexpected EOF", -1},
		{"cut number", `[1.`, "unexpected EOF", -1},
		{"comma before the end", `{"a":1,}`, "invalid character '}' looking for beginning of object key string", 7},
		{"missing colon", `{"a" 1}`, "invalid character '1' after object key", 5},
		{"missing comma", `[1 2]`, "invalid character '2' after array element", 3},
		{"wrong closer", `[1}`, "invalid character '}' after array element", 2},
		{"control character", "[\"a\nb\"]", "invalid character '\\n' in string literal", 3},
		{"bad escape", `["\x"]`, "invalid character 'x' in string escape code", 3},
		{"bad literal", `[tru]`, "invalid character ']' in literal true (expecting 'e')", 4},
		{"leading zero", `[01]`, "invalid character '1' after array element", 2},
		{"bad start", `[x]`, "invalid character 'x' looking for beginning of value", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tokens(t, tt.in)
			if tt.want == "EOF" {
				// tokens turns io.EOF into nil; read again by hand.
				r := NewReader([]byte(tt.in))
				for err == nil {
					_, err = r.Next()
				}
				assert.Equal(t, io.EOF, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var se *json.SyntaxError
			if tt.offset >= 0 {
				require.ErrorAs(t, err, &se)
				assert.Equal(t, tt.offset, se.Offset)
			}
		})
	}
}

func TestNextTrailing(t *testing.T) {
	tests := []struct {
		in     string
		offset int
	}{
		{`{} x`, 3},
		{"1\n\n2", 3},
		{`[]]`, 2},
		{`"a""b"`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r := NewReader([]byte(tt.in))
			var err error
			for err == nil {
				_, err = r.Next()
			}
			require.ErrorIs(t, err, ErrTrailing)
			assert.Equal(t, tt.offset, r.Offset())
		})
	}
}

func TestSkip(t *testing.T) {
	tests := []struct {
		name, in string
		end      int
		next     string // kind of the token after the value
	}{
		{"object", `[{"a":[1,{"b":2}]}, 3]`, 18, "number"},
		{"array", `[[1,[2]],[]]`, 8, "["},
		{"scalar", `["x", 1]`, 4, "number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader([]byte(tt.in))
			_, err := r.Next() // the outer '['
			require.NoError(t, err)
			first, err := r.Next()
			require.NoError(t, err)
			end, err := r.Skip(first)
			require.NoError(t, err)
			assert.Equal(t, tt.end, end)
			assert.Equal(t, 1, r.Depth())
			next, err := r.Next()
			require.NoError(t, err)
			assert.Equal(t, tt.next, next.Kind.String())
		})
	}
	t.Run("malformed inside", func(t *testing.T) {
		r := NewReader([]byte(`{"a":[1,}`))
		first, err := r.Next()
		require.NoError(t, err)
		_, err = r.Skip(first)
		assert.EqualError(t, err, "invalid character '}' looking for beginning of value")
	})
}

func TestMore(t *testing.T) {
	tests := []struct {
		in   string
		want []bool // before each token, to the end
	}{
		{`[1, 2]`, []bool{true, true, true, false, false}},
		{`{ }`, []bool{true, false, false}},
		{`{"a": [ ]}`, []bool{true, true, true, false, false, false}},
		{`[1,`, []bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r := NewReader([]byte(tt.in))
			var got []bool
			for {
				got = append(got, r.More())
				if _, err := r.Next(); err != nil {
					break
				}
			}
			assert.Equal(t, tt.want, got)
			assert.False(t, r.More(), "after an error or the end")
		})
	}
}

func TestUnquote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d\n"`, "a\"b\\c/d\n"},
		{`"\u00e9\ud83d\ude00"`, "é😀"},
		{`"\ud800"`, "\ufffd"},
		{"\"a\xffb\"", "a\ufffdb"},
		{`""`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r := NewReader([]byte(tt.in))
			tok, err := r.Next()
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Unquote(tok))
			var want string
			require.NoError(t, json.Unmarshal([]byte(tt.in), &want))
			assert.Equal(t, want, r.Unquote(tok), "as encoding/json")
		})
	}
}

func TestReaderMatchesDecoder(t *testing.T) {
	for _, seed := range fuzzSeeds {
		t.Run(seed[:min(len(seed), 20)], func(t *testing.T) {
			compareWithDecoder(t, []byte(seed))
			checkSkip(t, []byte(seed))
		})
	}
}

func TestReset(t *testing.T) {
	var r Reader
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	for _, in := range []string{deep, `{"a":[1]}`, deep, `x`} {
		r.Reset([]byte(in))
		var err error
		n := 0
		for err == nil {
			_, err = r.Next()
			n++
		}
		if in == "x" {
			assert.EqualError(t, err, "invalid character 'x' looking for beginning of value")
			continue
		}
		assert.Equal(t, io.EOF, err, in)
	}
}

// Reading valid JSON allocates nothing.
func TestNoAllocations(t *testing.T) {
	data := []byte(`{"name":"a","tags":["x","y\n"],"n":-1.5e3,"ok":true,"nested":{"k":[null,false,{}]}}`)
	var r Reader
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(data)
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkNext(b *testing.B) {
	data := []byte(`{"path": "/src/main.go", "limit": 200, "tags": ["a", "b"], "deep": {"x": [1, 2, {"y": null}]}}`)
	var r Reader
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(data)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
