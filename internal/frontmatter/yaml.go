package frontmatter

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseYAML parses src as one YAML document into a node tree, turning a
// panic of the parser into an error. The tree is only read node by node
// (never decoded into Go values by tag), so no tag can construct anything.
func parseYAML(src string) (doc *yaml.Node, err error) {
	defer func() {
		if v := recover(); v != nil {
			doc, err = nil, fmt.Errorf("yaml: %v", v)
		}
	}()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// rootMapping returns the mapping at the root of doc, an empty mapping for
// an empty document, or nil when the root is something else.
func rootMapping(doc *yaml.Node) *yaml.Node {
	if doc.Kind == 0 {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		return doc.Content[0]
	}
	return nil
}

// shiftLines adds offset to the line of n and of every node below it.
func shiftLines(n *yaml.Node, offset int) {
	if n == nil || offset == 0 {
		return
	}
	n.Line += offset
	for _, c := range n.Content {
		shiftLines(c, offset)
	}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// YAMLProblem returns the message of a YAML error without the "yaml: "
// prefix, and the file line it names (0 when it names none), given the
// file line of the parsed text's first line.
func YAMLProblem(err error, firstLine int) (line int, msg string) {
	text := err.Error()
	if m := yamlLineRE.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n + firstLine - 1, m[2]
	}
	return 0, strings.TrimPrefix(text, "yaml: ")
}

// Parse reads frontmatter lines whose first is file line firstLine into a
// mapping node carrying file line numbers. Valid YAML is read as YAML.
// Otherwise (strictErr is then the reason, for YAMLProblem) the lines are
// read leniently, as real files need: a line "key:" at column 0 starts a
// key when known(key) or the key starts with a lower-case letter, every
// other line continues the current value, and only the keys known says
// are kept. ignored are the file lines before the first key that are
// neither blank nor comments.
func Parse(lines []string, firstLine int, known func(key string) bool) (m *yaml.Node, strictErr error, ignored []int) {
	doc, err := parseYAML(strings.Join(lines, "\n"))
	if err == nil {
		if m := rootMapping(doc); m != nil {
			shiftLines(m, firstLine-1)
			return m, nil, nil
		}
		err = fmt.Errorf("yaml: the frontmatter is not a list of key: value lines")
	}
	m, ignored = readLenient(lines, firstLine, known)
	return m, err, ignored
}
