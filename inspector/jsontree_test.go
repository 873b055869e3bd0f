package inspector

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJSONTree(t *testing.T) {
	var v any
	d := json.NewDecoder(strings.NewReader(`{"b":[1,"<i>x</i>",null,true],"a":{"k\u001b":"v"}}`))
	d.UseNumber()
	assert.NoError(t, d.Decode(&v))
	got := string(jsonTree(v))
	assert.Contains(t, got, `<span class="key">a</span>: <details class="obj" open><summary>{1}</summary>`)
	assert.Contains(t, got, `<span class="str">"&lt;i&gt;x&lt;/i&gt;"</span>`)
	assert.Contains(t, got, `<span class="key">k\x1b</span>`)
	assert.Contains(t, got, `<span class="null">null</span>`)
	assert.Less(t, strings.Index(got, `"key">a<`), strings.Index(got, `"key">b<`), "keys sorted")

	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	assert.NoError(t, json.Unmarshal([]byte(deep), &v))
	assert.Contains(t, string(jsonTree(v)), "nested too deep to show")

	wide := make([]any, maxTreeNodes+10)
	assert.Contains(t, string(jsonTree(wide)), "more not shown")
}

// Whatever JSON a session holds, its tree is the renderer's markup around
// escaped text.
func FuzzJSONTree(f *testing.F) {
	for _, s := range []string{`{"a":"<script>"}`, `[1,2,{"\"><img":null}]`, `"javascript:alert(1)"`, `{"x":{"y":[true,false,1e308]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var v any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return
		}
		out := string(jsonTree(v))
		rest := out
		for _, tag := range []string{`<details class="obj" open>`, `<details class="obj">`, `<details class="arr" open>`, `<details class="arr">`,
			"<summary>", "</summary>", "<ul>", "</ul>", `<ol start="0">`, "</ol>", "<li>", "</li>", "</details>",
			`<span class="key">`, `<span class="str">`, `<span class="num">`, `<span class="null">`, `<span class="lit">`, `<span class="more">`, "</span>"} {
			rest = strings.ReplaceAll(rest, tag, "")
		}
		if strings.ContainsAny(rest, "<>'") {
			t.Fatalf("markup in the tree of %q: %q", s, out)
		}
	})
}
