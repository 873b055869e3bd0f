package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/internal/jsontok"
)

// jsonNode parses a JSON document into a YAML node tree whose nodes carry
// the JSON's line numbers, so that config.json entries are read by the same
// code as frontmatter. Strings are double-quoted scalars (no \n
// replacement), numbers !!int or !!float.
func jsonNode(data []byte) (*yaml.Node, error) {
	p := jsonParser{r: jsontok.NewReader(data), lines: lineStarts(data)}
	n, err := p.next()
	if err != nil {
		return nil, p.locate(err)
	}
	if _, err := p.r.Next(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line %d: unexpected data after the JSON value", p.line(p.r.Offset()))
	}
	return n, nil
}

// lineStarts returns the offsets at which the lines of data start.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

type jsonParser struct {
	r     *jsontok.Reader
	lines []int
	depth int
}

// line returns the line of the input offset off.
func (p *jsonParser) line(off int) int {
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
}

// locate adds the line to a JSON syntax error.
func (p *jsonParser) locate(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %v", p.line(int(se.Offset)), se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON ends too early: a brace or bracket is not closed")
	}
	return err
}

// next reads the next value.
func (p *jsonParser) next() (*yaml.Node, error) {
	tok, err := p.r.Next()
	if err != nil {
		return nil, err
	}
	return p.value(tok)
}

// value reads the value whose first token is tok. A node's line is the
// line where its first token ends.
func (p *jsonParser) value(tok jsontok.Token) (*yaml.Node, error) {
	line := p.line(tok.End)
	switch tok.Kind {
	case jsontok.ObjectStart, jsontok.ArrayStart:
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > 100 {
			return nil, fmt.Errorf("line %d: the JSON is nested more than 100 levels deep", line)
		}
		if tok.Kind == jsontok.ObjectStart {
			return p.object(line)
		}
		return p.array(line)
	case jsontok.String:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.r.Unquote(tok), Style: yaml.DoubleQuotedStyle, Line: line}, nil
	case jsontok.Number:
		text := string(p.r.Bytes(tok))
		tag := "!!float"
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: text, Line: line}, nil
	case jsontok.True, jsontok.False:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(tok.Kind == jsontok.True), Line: line}, nil
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
}

func (p *jsonParser) object(line int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	for {
		tok, err := p.r.Next()
		if err != nil {
			return nil, err
		}
		if tok.Kind == jsontok.ObjectEnd {
			return n, nil
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.r.Unquote(tok), Style: yaml.DoubleQuotedStyle, Line: p.line(tok.End)}
		v, err := p.next()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, key, v)
	}
}

func (p *jsonParser) array(line int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
	for {
		tok, err := p.r.Next()
		if err != nil {
			return nil, err
		}
		if tok.Kind == jsontok.ArrayEnd {
			return n, nil
		}
		v, err := p.value(tok)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
	}
}
