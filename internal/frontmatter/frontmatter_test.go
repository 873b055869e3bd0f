package frontmatter

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		problem    Problem
		line       int
		front      []string
		body       string
	}{
		{"plain", "---\nname: a\n---\nbody\n", None, 0, []string{"name: a"}, "body"},
		{"long closing fence, no final newline", "---\nname: a\n-----\nbody", None, 0, []string{"name: a"}, "body"},
		{"indented as a whole", "---\n  name: a\n  description: b\n---\n", None, 0, []string{"name: a", "description: b"}, ""},
		{"none", "# Title\ntext\n", Missing, 1, nil, ""},
		{"empty", "", Missing, 2, nil, ""},
		{"after blank lines", "\n\n---\nname: a\n---\n", NotFirst, 3, nil, ""},
		{"indented fence", "  ---\nname: a\n---\n", NotFirst, 1, nil, ""},
		{"unclosed", "---\nname: a\n", Unclosed, 1, nil, ""},
		{"too large", "---\nname: " + strings.Repeat("x", 100) + "\n---\n", TooLarge, 1, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, p, line, _ := Split(tc.text, 64)
			require.Equal(t, tc.problem, p)
			assert.Equal(t, tc.line, line)
			if p == None {
				assert.Equal(t, tc.front, doc.Front)
				assert.Equal(t, tc.body, doc.Body)
				assert.Equal(t, 2, doc.FrontLine)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	text, bad := Normalize([]byte("\uFEFFa\r\nb\rc\n"))
	assert.Equal(t, "a\nb\nc\n", text)
	assert.False(t, bad)
	text, bad = Normalize([]byte("a\xffb"))
	assert.Equal(t, "a\uFFFDb", text)
	assert.True(t, bad)
}

func TestParse(t *testing.T) {
	known := func(k string) bool { return k == "name" || k == "description" }
	for _, tc := range []struct {
		name    string
		lines   []string
		strict  bool
		want    map[string]string
		ignored []int
	}{
		{"valid YAML", []string{"name: a", "description: 'b: c'", "other: x"}, true, map[string]string{"name": "a", "description": "b: c", "other": "x"}, nil},
		{"colon in a value", []string{"name: a", "description: Use when: tests fail", "other: x"}, false, map[string]string{"name": "a", "description": "Use when: tests fail"}, nil},
		{"stray line first", []string{"oops", "name: a", "description: b: c"}, false, map[string]string{"name": "a", "description": "b: c"}, []int{5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, strictErr, ignored := Parse(tc.lines, 5, known)
			assert.Equal(t, tc.strict, strictErr == nil)
			got := map[string]string{}
			for i := 0; i+1 < len(m.Content); i += 2 {
				got[m.Content[i].Value] = m.Content[i+1].Value
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.ignored, ignored)
		})
	}
}

func FuzzSplitParse(f *testing.F) {
	for _, s := range []string{"---\nname: a\n---\nbody", "---\ndescription: a: b\n  c\n---\n", "x", "---\n- a\n---"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, _ := Normalize([]byte(s))
		doc, p, _, _ := Split(text, 1<<10)
		if p != None {
			return
		}
		m, _, _ := Parse(doc.Front, doc.FrontLine, func(string) bool { return true })
		require.NotNil(t, m)
		require.Zero(t, len(m.Content)%2)
	})
}
