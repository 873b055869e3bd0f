package inspector

import (
	"fmt"
	"html"
	"html/template"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxShown bounds the bytes of one text a page shows (a message, a tool's
// arguments, a file): a session may hold one of many megabytes.
const maxShown = 64 << 10

// funcs are the templates' functions.
var funcs = template.FuncMap{
	"text":   printable,
	"md":     markdown,
	"short":  shortID,
	"tokens": tokens,
	"when":   when,
	"pct":    pct,
	"value":  valueAttr,
	"tree":   jsonTree,
	"prev":   func(n uint64) uint64 { return max(n, 1) - 1 },
}

// printable returns s as a page shows it: control characters (but new
// lines and tabs), bidirectional overrides and invalid UTF-8 written as
// visible escapes, cut to maxShown bytes. The template escapes the rest.
func printable(s string) string {
	s = capped(s, maxShown)
	if !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports whether r would not show as itself: a control character
// (but a new line or a tab), a bidirectional control, a zero-width format
// character.
func hidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// capped returns s cut to n bytes at a character boundary, saying how
// much more there was.
func capped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (%d more bytes not shown)", len(s)-cut)
}

// markdown renders a message's text safely: escaped, its fenced code
// blocks as preformatted code, the rest as paragraphs that keep their
// lines. Nothing in the text becomes a tag, a link or an attribute.
func markdown(s string) template.HTML {
	s = printable(s)
	var b strings.Builder
	inCode := false
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>")
			b.WriteString(html.EscapeString(strings.Join(para, "\n")))
			b.WriteString("</p>")
			para = para[:0]
		}
	}
	for line := range strings.SplitSeq(s, "\n") {
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		switch {
		case fence && !inCode:
			flush()
			b.WriteString("<pre><code>")
			inCode = true
		case fence:
			b.WriteString("</code></pre>")
			inCode = false
		case inCode:
			b.WriteString(html.EscapeString(line))
			b.WriteByte('\n')
		case strings.TrimSpace(line) == "":
			flush()
		default:
			para = append(para, line)
		}
	}
	flush()
	if inCode {
		b.WriteString("</code></pre>")
	}
	return template.HTML(b.String())
}

// shortID returns the start of a long id, as a table shows it.
func shortID(id string) string {
	if r := []rune(id); len(r) > 12 {
		return printable(string(r[:12])) + "…"
	}
	return printable(id)
}

// tokens returns n as a person reads it: 950, 12.3k, 4.1M; "-" for none.
func tokens(n int64) string {
	switch {
	case n <= 0:
		return "-"
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// when returns t to the second, in UTC; "-" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// pct returns part of whole as a percentage; "-" when whole is 0.
func pct(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", part*100/whole)
}

// valueAttr returns a form field's value attribute holding s exactly (a
// session's id, a search): escaped, with the characters that would not
// show as themselves written as character references, so that the page
// holds none of them and the form still sends s as it is.
func valueAttr(s string) template.HTMLAttr {
	var b strings.Builder
	b.WriteString(`value="`)
	for _, r := range s {
		switch {
		case r == utf8.RuneError, hidden(r) && r != 0:
			fmt.Fprintf(&b, "&#x%x;", r)
		case r == 0:
			b.WriteString("&#xfffd;")
		default:
			b.WriteString(html.EscapeString(string(r)))
		}
	}
	b.WriteByte('"')
	return template.HTMLAttr(b.String())
}
