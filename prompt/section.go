package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/template"

	"github.com/offshoot-dev/offshoot/tools"
)

// NoParams is the params type of sections that take none.
type NoParams struct{}

// Section is one titled part of a prompt: a text/template body rendered
// with a params value of the section's own Go type, the tools it offers
// the model, and child sections. Build sections with Markdown; they are
// immutable and can be shared by several prompts.
//
// A section that could not be built carries its construction error (see
// Err) instead of failing at once, so sections can be written inline in a
// call to New, which returns every such error joined.
type Section struct {
	title    string
	key      string
	params   reflect.Type
	zero     any            // the zero value of params
	defaults any            // a value of params, or nil
	enabled  func(any) bool // nil: always enabled
	body     string         // dedented template source
	tmpl     *template.Template
	// static is the body of a section whose params have no fields, so its
	// template always renders the same text: rendered once, at
	// construction.
	static   []byte
	isStatic bool
	tools    []tools.Tool
	children []*Section
	// plain is set for a section shown without its heading (WithoutHeading).
	plain bool
	err   error
}

// Title returns the section's heading text.
func (s *Section) Title() string { return s.title }

// Key returns the section's key, unique among its siblings.
func (s *Section) Key() string { return s.key }

// Err returns the section's own construction errors (not its children's),
// joined, or nil.
func (s *Section) Err() error { return s.err }

// SectionOption configures Markdown. Options that carry values of the
// section's params type (WithDefaults, WithEnabled) are checked against it
// when Markdown runs; a mismatch is a construction error.
type SectionOption interface {
	apply(*sectionConfig)
}

type sectionConfig struct {
	key      string
	defaults any
	enabled  any
	tools    []tools.Tool
	children []*Section
	plain    bool
	errs     []error
}

type sectionOptionFunc func(*sectionConfig)

func (f sectionOptionFunc) apply(c *sectionConfig) { f(c) }

// WithKey sets the section's key instead of deriving it from the title. It
// must match ^[a-z0-9][a-z0-9._-]{0,63}$.
func WithKey(key string) SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) { c.key = key })
}

// WithDefaults sets the params a render uses when it is given no value of
// the section's params type P.
func WithDefaults[P any](defaults P) SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) { c.defaults = defaults })
}

// WithEnabled sets a predicate over the section's params that decides, at
// each render, whether the section is shown. A disabled section renders
// nothing, takes no number, and offers none of its own or its children's
// tools.
func WithEnabled[P any](enabled func(P) bool) SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) {
		if enabled == nil {
			c.errs = append(c.errs, errors.New("WithEnabled needs a predicate"))
			return
		}
		c.enabled = enabled
	})
}

// WithTools adds tools the section offers the model while it is enabled.
func WithTools(ts ...tools.Tool) SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) {
		for _, t := range ts {
			if t == nil {
				c.errs = append(c.errs, errors.New("WithTools got a nil tool; check the error tools.New returned"))
				continue
			}
			c.tools = append(c.tools, t)
		}
	})
}

// WithTool adds one tool, taking tools.New's results as they come, so a
// tool can be declared inline; a construction error of the tool becomes
// the section's:
//
//	prompt.WithTool(tools.New("ls", "List a directory.", ls))
func WithTool(t tools.Tool, err error) SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) {
		switch {
		case err != nil:
			c.errs = append(c.errs, err)
		case t == nil:
			c.errs = append(c.errs, errors.New("WithTool got a nil tool"))
		default:
			c.tools = append(c.tools, t)
		}
	})
}

// WithChildren adds child sections, rendered after the section's body and
// numbered below it (1.1., 1.2., …).
func WithChildren(children ...*Section) SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) {
		for _, ch := range children {
			if ch == nil {
				c.errs = append(c.errs, errors.New("WithChildren got a nil section"))
				continue
			}
			c.children = append(c.children, ch)
		}
	})
}

// WithoutHeading shows the section's body alone, where the section stands:
// no heading, no number, and the sections after it are numbered as if it
// were not there. It is for text a prompt must show as it is written —
// the opening of a system prompt that has to begin with a given text, say.
// The title still names the section in errors and overrides. A section
// without a heading cannot have children.
func WithoutHeading() SectionOption {
	return sectionOptionFunc(func(c *sectionConfig) { c.plain = true })
}

// Markdown returns a section titled title whose body is the text/template
// source body, rendered with a value of P (a struct; NoParams for none).
//
// The body is dedented and trimmed, so it can be indented with the code
// around it. At construction the template is parsed, its field references
// (.Field chains) are checked against P, and it is rendered once with the
// zero P; any failure is a construction error that names the section and,
// for a missing field, the field. The key is derived from the title unless
// WithKey gives one.
func Markdown[P any](title, body string, opts ...SectionOption) *Section {
	var c sectionConfig
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	pt := reflect.TypeFor[P]()
	s := &Section{
		title:    strings.TrimSpace(title),
		key:      c.key,
		params:   pt,
		zero:     reflect.Zero(pt).Interface(),
		tools:    c.tools,
		children: c.children,
		plain:    c.plain,
		body:     dedent(body),
	}
	errs := c.errs
	if c.plain && len(c.children) > 0 {
		errs = append(errs, errors.New("a section without a heading cannot have children; make them sections of their own"))
	}
	if s.title == "" || strings.ContainsAny(s.title, "\r\n") {
		errs = append(errs, fmt.Errorf("the title %q must be one non-empty line", title))
	}
	if s.key == "" {
		s.key = keyFromTitle(s.title)
		if s.key == "" {
			errs = append(errs, fmt.Errorf("no key can be derived from the title %q; give one with prompt.WithKey", title))
		}
	} else if err := checkKey("section key", s.key); err != nil {
		errs = append(errs, err)
	}
	if pt.Kind() != reflect.Struct {
		errs = append(errs, fmt.Errorf("params must be a struct type, got %s; use prompt.NoParams for none", pt))
	}
	if c.defaults != nil {
		if _, ok := c.defaults.(P); !ok {
			errs = append(errs, fmt.Errorf("WithDefaults got a %T, want the section's params type %s", c.defaults, pt))
		} else {
			s.defaults = c.defaults
		}
	}
	if c.enabled != nil {
		if fn, ok := c.enabled.(func(P) bool); ok {
			s.enabled = func(v any) bool { return fn(v.(P)) }
		} else {
			errs = append(errs, fmt.Errorf("WithEnabled got a %T, want a func(%s) bool", c.enabled, pt))
		}
	}
	if pt.Kind() == reflect.Struct {
		tmpl, err := compile(s.key, s.body, pt)
		if err != nil {
			errs = append(errs, err)
		} else {
			s.tmpl = tmpl
			if pt.NumField() == 0 {
				var b bytes.Buffer
				if execute(tmpl, &b, s.zero) == nil {
					s.static, s.isStatic = bytes.Clone(trimBlankLines(b.Bytes())), true
				}
			}
		}
	}
	if len(errs) > 0 {
		name := s.key
		if name == "" {
			name = s.title
		}
		var wrapped []error
		for _, err := range errs {
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					wrapped = append(wrapped, &sectionError{Section: name, Err: e})
				}
				continue
			}
			wrapped = append(wrapped, &sectionError{Section: name, Err: err})
		}
		s.err = errors.Join(wrapped...)
	}
	return s
}

// compile parses body as a template over params of type pt, checks its
// field references and renders it once with the zero value.
func compile(name, body string, pt reflect.Type) (*template.Template, error) {
	tmpl, err := template.New(name).Option("missingkey=zero").Parse(body)
	if err != nil {
		return nil, fmt.Errorf("the template does not parse: %w", err)
	}
	if err := checkFields(tmpl, pt); err != nil {
		return nil, err
	}
	if err := execute(tmpl, io.Discard, reflect.Zero(pt).Interface()); err != nil {
		return nil, fmt.Errorf("the template fails with the zero %s: %w", pt, err)
	}
	return tmpl, nil
}

// execute runs tmpl with data into w, turning a panic into an error.
func execute(tmpl *template.Template, w io.Writer, data any) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return tmpl.Execute(w, data)
}
