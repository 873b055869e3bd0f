package inspector

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"slices"
	"strings"
)

// maxTreeNodes bounds the nodes one JSON tree shows, and maxTreeDepth
// how deep it goes: a slice's item may be as large and as deep as a
// program made it.
const (
	maxTreeNodes = 5000
	maxTreeDepth = 32
)

// jsonTree renders v, decoded JSON, as nested lists that fold: objects
// and lists as <details>, strings, numbers and the rest as escaped text.
func jsonTree(v any) template.HTML {
	var b strings.Builder
	budget := maxTreeNodes
	writeTree(&b, v, 0, &budget)
	return template.HTML(b.String())
}

func writeTree(b *strings.Builder, v any, depth int, budget *int) {
	*budget--
	if *budget < 0 {
		if *budget == -1 {
			b.WriteString(`<span class="more">… (more not shown)</span>`)
		}
		return
	}
	if depth > maxTreeDepth {
		b.WriteString(`<span class="more">… (nested too deep to show)</span>`)
		return
	}
	open := ""
	if depth < 2 {
		open = " open"
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprintf(b, `<details class="obj"%s><summary>{%d}</summary><ul>`, open, len(keys))
		for _, k := range keys {
			b.WriteString(`<li><span class="key">`)
			b.WriteString(html.EscapeString(printable(k)))
			b.WriteString(`</span>: `)
			writeTree(b, x[k], depth+1, budget)
			b.WriteString(`</li>`)
		}
		b.WriteString(`</ul></details>`)
	case []any:
		fmt.Fprintf(b, `<details class="arr"%s><summary>[%d]</summary><ol start="0">`, open, len(x))
		for _, e := range x {
			b.WriteString(`<li>`)
			writeTree(b, e, depth+1, budget)
			b.WriteString(`</li>`)
		}
		b.WriteString(`</ol></details>`)
	case string:
		b.WriteString(`<span class="str">"`)
		b.WriteString(html.EscapeString(printable(x)))
		b.WriteString(`"</span>`)
	case json.Number:
		b.WriteString(`<span class="num">`)
		b.WriteString(html.EscapeString(x.String()))
		b.WriteString(`</span>`)
	case nil:
		b.WriteString(`<span class="null">null</span>`)
	default:
		b.WriteString(`<span class="lit">`)
		b.WriteString(html.EscapeString(printable(fmt.Sprint(x))))
		b.WriteString(`</span>`)
	}
}
