package frontmatter

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyLineRE matches a line that may start a key in the lenient reader: a
// name at column 0, a colon, then a space or the end of the line.
var keyLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]|$)`)

// segment is one key of a leniently read frontmatter and the lines of its
// value: the key's own line and the lines that continue it.
type segment struct {
	key   string
	line  int
	lines []string
	open  int // <example> blocks opened and not yet closed
}

// readLenient reads frontmatter that is not valid YAML, as about one real
// agent file in sixteen is: typically an unquoted description containing
// ": " ("Use when: …", "Examples: <example>…"), sometimes running over
// several unindented lines.
//
// A line starts a key when it has the shape "key:" at column 0, the key is
// one the caller reads (known) or starts with a lower-case letter (so "Examples:"
// or "Context:" inside a description do not), and no <example> block of the
// current value is open. Every other line continues the current value. A
// value is read as YAML when its lines alone are valid YAML (quoted values,
// > and | blocks, [a, b] and "- item" lists); otherwise it is the text of
// its lines, not split at later colons. Lines before the first key that are
// neither blank nor comments are returned in ignored.
func readLenient(lines []string, firstLine int, known func(key string) bool) (m *yaml.Node, ignored []int) {
	var segs []*segment
	var cur *segment
	for i, l := range lines {
		if k := keyLineRE.FindStringSubmatch(l); k != nil && (cur == nil || cur.open == 0) && startsKey(k[1], known) {
			cur = &segment{key: k[1], line: firstLine + i}
			segs = append(segs, cur)
		} else if cur == nil {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				ignored = append(ignored, firstLine+i)
			}
			continue
		}
		cur.lines = append(cur.lines, l)
		lower := strings.ToLower(l)
		cur.open += strings.Count(lower, "<example") - strings.Count(lower, "</example>")
		if cur.open < 0 {
			cur.open = 0
		}
	}
	m = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: firstLine}
	for _, s := range segs {
		if !known(s.key) {
			continue // ignored anyway
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.key, Line: s.line}
		m.Content = append(m.Content, key, s.value())
	}
	return m, ignored
}

// startsKey reports whether a "name:" line at column 0 starts a key in the
// lenient reader.
func startsKey(name string, known func(string) bool) bool {
	if known(name) {
		return true
	}
	c := name[0]
	return 'a' <= c && c <= 'z' || c == '_'
}

// value returns the node of s's value: its YAML reading when its lines
// alone are valid YAML for one key (with tabs taken as indentation, which
// YAML forbids but files use), else the plain text of its lines.
func (s *segment) value() *yaml.Node {
	src := strings.Join(s.lines, "\n")
	for _, try := range []string{src, strings.ReplaceAll(src, "\t", "  ")} {
		if doc, err := parseYAML(try); err == nil {
			if m := rootMapping(doc); m != nil && len(m.Content) == 2 && m.Content[0].Value == s.key {
				v := m.Content[1]
				shiftLines(v, s.line-1)
				return v
			}
		}
		if !strings.Contains(src, "\t") {
			break
		}
	}
	rest := strings.TrimSpace(s.lines[0][len(s.key)+1:])
	text := strings.TrimSpace(strings.Join(append([]string{rest}, s.lines[1:]...), "\n"))
	if text == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: s.line}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text, Line: s.line}
}
