package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// jsonNode parses a JSON document into a YAML node tree whose nodes carry
// the JSON's line numbers, so that config.json entries are read by the same
// code as frontmatter. Strings are double-quoted scalars (no \n
// replacement), numbers !!int or !!float.
func jsonNode(data []byte) (*yaml.Node, error) {
	lines := lineStarts(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := jsonParser{dec: dec, lines: lines}
	n, err := p.value()
	if err != nil {
		return nil, p.locate(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line %d: unexpected data after the JSON value", p.line())
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
	dec   *json.Decoder
	lines []int
	depth int
}

// line returns the line of the decoder's position.
func (p *jsonParser) line() int {
	off := int(p.dec.InputOffset())
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
}

// locate adds the line to a JSON syntax error.
func (p *jsonParser) locate(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		line := sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
		return fmt.Errorf("line %d: %v", line, se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the JSON ends too early: a brace or bracket is not closed")
	}
	return err
}

func (p *jsonParser) value() (*yaml.Node, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	line := p.line()
	switch t := tok.(type) {
	case json.Delim:
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > 100 {
			return nil, fmt.Errorf("line %d: the JSON is nested more than 100 levels deep", line)
		}
		if t == '{' {
			return p.object(line)
		}
		return p.array(line)
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t, Style: yaml.DoubleQuotedStyle, Line: line}, nil
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String(), Line: line}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t), Line: line}, nil
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
}

func (p *jsonParser) object(line int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, err
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: tok.(string), Style: yaml.DoubleQuotedStyle, Line: p.line()}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, key, v)
	}
	_, err := p.dec.Token() // '}'
	return n, err
}

func (p *jsonParser) array(line int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
	for p.dec.More() {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
	}
	_, err := p.dec.Token() // ']'
	return n, err
}
