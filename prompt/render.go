package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/tools"
)

// Rendered is a prompt rendered with one set of params: the text for the
// model, the tools it may call, and what is needed to read its answer.
type Rendered struct {
	// NS and Key identify the prompt.
	NS, Key string
	// Text is the rendered prompt: the enabled sections, numbered and
	// joined by blank lines (a section WithoutHeading shows its body alone
	// and takes no number), then the Response Format section if the
	// prompt declares structured output.
	Text string
	// Tools are the tools of the enabled sections, depth first.
	Tools tools.Toolset
	// Output is the structured-output declaration, or nil.
	Output *OutputSpec
	// Descriptor holds the hashes of the prompt's section templates and
	// tool contracts.
	Descriptor Descriptor
	// Overrides reports the overrides applied and ignored; nil when the
	// prompt has no override store.
	Overrides *OverrideReport
}

// Render renders the prompt. Each value of params goes to the sections
// whose params type is its type; order does not matter. A value whose type
// no section takes, two values of one type, or a value that is not a
// struct is a *ValidationError. Each section renders with the value given
// for its type, else its default, else the zero value; enabled sections
// first validate it (`validate` tags; failures are *ValidationError values
// naming the section and field), and a template failure is a *RenderError
// naming the section path.
func (p *Prompt) Render(params ...any) (*Rendered, error) {
	values, err := p.match(params)
	if err != nil {
		return nil, err
	}
	r := renderer{p: p, values: values, overlay: p.loadOverlay()}
	r.text.Grow(1024)
	if err := r.walk(p.tree, 0, ""); err != nil {
		return nil, err
	}
	if p.output != nil {
		r.count++
		r.section(1, strconv.Itoa(r.count), responseFormatTitle, p.output.text)
	}
	ts, err := tools.NewToolset(r.tools...)
	if err != nil {
		return nil, fmt.Errorf("prompt: %s/%s: %w", p.ns, p.key, err) // New rules this out
	}
	out := &Rendered{
		NS: p.ns, Key: p.key,
		Text:       r.text.String(),
		Tools:      ts,
		Output:     p.output,
		Descriptor: p.descriptor.clone(),
	}
	if r.overlay != nil {
		r.overlay.sortReport()
		out.Overrides = r.overlay.report
	}
	return out, nil
}

// match pairs params with the prompt's params types.
func (p *Prompt) match(params []any) ([]typedValue, error) {
	values := make([]typedValue, 0, len(params))
	for i, v := range params {
		if v == nil {
			return nil, &ValidationError{Reason: fmt.Sprintf("params value %d is nil; pass a struct value of one of: %s", i, p.typeList())}
		}
		t := reflect.TypeOf(v)
		if t.Kind() != reflect.Struct {
			hint := ""
			if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
				hint = "; pass the struct value, not a pointer to it"
			}
			return nil, &ValidationError{Reason: fmt.Sprintf("params value %d is a %s, not a struct%s", i, t, hint)}
		}
		if !p.takes(t) {
			return nil, &ValidationError{Reason: fmt.Sprintf("no section of %s/%s takes params of type %s; its sections take: %s", p.ns, p.key, t, p.typeList())}
		}
		for _, prev := range values {
			if prev.t == t {
				return nil, &ValidationError{Reason: fmt.Sprintf("two params values of type %s; pass one value per type", t)}
			}
		}
		values = append(values, typedValue{t: t, v: v})
	}
	return values, nil
}

func (p *Prompt) takes(t reflect.Type) bool {
	for _, pt := range p.paramTypes {
		if pt == t {
			return true
		}
	}
	return false
}

type typedValue struct {
	t     reflect.Type
	v     any
	valid bool // validated in this render
}

// renderer is the state of one render.
type renderer struct {
	p       *Prompt
	values  []typedValue
	overlay *overlay
	text    strings.Builder
	body    bytes.Buffer
	tools   []tools.Tool
	count   int // top-level sections rendered
}

// walk renders the enabled sections of nodes at depth (0 for top level),
// numbered below prefix ("" or "1.2").
func (r *renderer) walk(nodes []*node, depth int, prefix string) error {
	num := 0
	for _, n := range nodes {
		s := n.sec
		v := r.value(s)
		on, err := enabled(s, v)
		if err != nil {
			return &RenderError{Section: n.path, Err: err}
		}
		if !on {
			continue
		}
		if err := r.validate(n.path, s, v); err != nil {
			return err
		}
		if s.plain {
			body, err := r.renderBody(n, v)
			if err != nil {
				return err
			}
			r.plain(body)
			for _, t := range s.tools {
				r.tools = append(r.tools, r.overlay.tool(t))
			}
			continue
		}
		num++
		number := strconv.Itoa(num)
		if prefix != "" {
			number = prefix + "." + number
		}
		if depth == 0 {
			r.count++
		}
		body, err := r.renderBody(n, v)
		if err != nil {
			return err
		}
		r.section(depth+1, number, s.title, body)
		for _, t := range s.tools {
			r.tools = append(r.tools, r.overlay.tool(t))
		}
		if err := r.walk(n.children, depth+1, number); err != nil {
			return err
		}
	}
	return nil
}

// value is the params value of s for this render.
func (r *renderer) value(s *Section) any {
	for _, tv := range r.values {
		if tv.t == s.params {
			return tv.v
		}
	}
	return s.fallback()
}

// validate validates v, the params of section s at path. A value given to
// Render is validated once, however many sections take it.
func (r *renderer) validate(path string, s *Section, v any) error {
	for i := range r.values {
		if tv := &r.values[i]; tv.t == s.params {
			if tv.valid {
				return nil
			}
			if err := validate(path, v); err != nil {
				return err
			}
			tv.valid = true
			return nil
		}
	}
	return validate(path, v)
}

// fallback is the params value of s when Render is given none of its type.
func (s *Section) fallback() any {
	if s.defaults != nil {
		return s.defaults
	}
	return s.zero
}

// enabled runs the section's predicate, turning a panic into an error.
func enabled(s *Section, v any) (on bool, err error) {
	if s.enabled == nil {
		return true, nil
	}
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("the enabled predicate panicked: %v", x)
		}
	}()
	return s.enabled(v), nil
}

// validate checks v's `validate` tags and names the section in failures.
func validate(path string, v any) error {
	err := serde.Validate(v)
	if err == nil {
		return nil
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		var ve *serde.ValidationError
		if errors.As(e, &ve) {
			out = append(out, &ValidationError{Section: path, Field: ve.Path, Reason: ve.Reason, Err: ve})
		} else {
			out = append(out, &ValidationError{Section: path, Reason: e.Error(), Err: e})
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// renderBody executes the section's template (or its override) with v. The
// result is valid until the next call.
func (r *renderer) renderBody(n *node, v any) ([]byte, error) {
	r.body.Reset()
	if tmpl := r.overlay.body(n.path); tmpl != nil {
		err := execute(tmpl, &r.body, v)
		if err == nil {
			return trimBlankLines(r.body.Bytes()), nil
		}
		r.overlay.fallBack(n.path, err)
		r.body.Reset()
	}
	if n.sec.isStatic {
		return n.sec.static, nil
	}
	if err := execute(n.sec.tmpl, &r.body, v); err != nil {
		return nil, &RenderError{Section: n.path, Err: err}
	}
	return trimBlankLines(r.body.Bytes()), nil
}

// section writes one section: its heading at level (1 for top level),
// a blank line, and its body; sections are separated by a blank line.
func (r *renderer) section(level int, number, title string, body []byte) {
	if r.text.Len() > 0 {
		r.text.WriteString("\n\n")
	}
	r.text.WriteString(headingMarks[min(level, len(headingMarks)-1)])
	r.text.WriteString(number)
	r.text.WriteString(". ")
	r.text.WriteString(title)
	if len(body) > 0 {
		r.text.WriteString("\n\n")
		r.text.Write(body)
	}
}

// plain writes the body of a section without a heading, separated from
// what comes before by a blank line; an empty body writes nothing.
func (r *renderer) plain(body []byte) {
	if len(body) == 0 {
		return
	}
	if r.text.Len() > 0 {
		r.text.WriteString("\n\n")
	}
	r.text.Write(body)
}

var headingMarks = []string{"", "## ", "### ", "#### ", "##### ", "###### "}
