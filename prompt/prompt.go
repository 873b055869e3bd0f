package prompt

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/tools"
)

// Prompt is a tree of sections under a namespace and key, with an optional
// structured-output declaration. Build one with New and render it with
// Render. A Prompt holds no session and is immutable: it is safe to render
// from many goroutines and to register in a Registry.
type Prompt struct {
	ns, key    string
	sections   []*Section
	paramTypes []reflect.Type // every section's params type, first use first
	output     *OutputSpec
	overrides  OverrideStore
	tag        string
	descriptor Descriptor
	tree       []*node      // the sections with their paths, as rendering walks them
	tools      []tools.Tool // every section's tools, depth first
	compiled   sync.Map     // override template cache: overrideKey -> *template.Template or error
}

// node is a section at its place in a prompt's tree.
type node struct {
	sec      *Section
	path     string
	children []*node
}

// Part is what New builds a prompt from: a *Section, or a prompt-level
// option such as WithOutput or WithOverrides.
type Part interface {
	addTo(*builder)
}

// builder collects a prompt's parts.
type builder struct {
	sections   []*Section
	output     *OutputSpec
	outputType reflect.Type // WithOutput's
	allowExtra bool         // AllowExtraKeys
	overrides  OverrideStore
	tag        string
	errs       []error
}

func (s *Section) addTo(b *builder) { b.sections = append(b.sections, s) }

// partFunc is a prompt-level option.
type partFunc func(*builder)

func (f partFunc) addTo(b *builder) { f(b) }

// New returns the prompt ns/key made of parts: its top-level sections in
// order, and options. ns and key must match ^[a-z0-9][a-z0-9._-]{0,63}$.
// It returns every construction error of the sections (and their children)
// joined, along with sibling sections sharing a key and tools sharing a
// name anywhere in the tree.
func New(ns, key string, parts ...Part) (*Prompt, error) {
	var b builder
	for i, p := range parts {
		if p == nil || p == (*Section)(nil) {
			b.errs = append(b.errs, fmt.Errorf("prompt: part %d is nil", i))
			continue
		}
		p.addTo(&b)
	}
	switch {
	case b.outputType != nil:
		spec, err := newOutputSpec(b.outputType, b.allowExtra)
		if err != nil {
			b.errs = append(b.errs, err)
		}
		b.output = spec
	case b.allowExtra && b.output == nil:
		b.errs = append(b.errs, errors.New("prompt: AllowExtraKeys needs WithOutput, which declares the output it applies to"))
	}
	errs := b.errs
	if err := checkKey("namespace", ns); err != nil {
		errs = append(errs, fmt.Errorf("prompt: %w", err))
	}
	if err := checkKey("prompt key", key); err != nil {
		errs = append(errs, fmt.Errorf("prompt: %w", err))
	}
	p := &Prompt{
		ns: ns, key: key,
		sections:  b.sections,
		output:    b.output,
		overrides: b.overrides,
		tag:       b.tag,
	}
	w := treeWalk{p: p, toolOwner: map[string]string{}}
	p.tree = w.sections(b.sections, "", 0)
	errs = append(errs, w.errs...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	p.descriptor = w.descriptor(ns, key)
	p.tools = w.toolList
	return p, nil
}

// treeWalk checks a section tree at construction and gathers what
// rendering and the descriptor need.
type treeWalk struct {
	p         *Prompt
	toolOwner map[string]string // tool name -> section path
	hashes    []hashedSection
	toolList  []tools.Tool
	errs      []error
}

const maxDepth = 32

func (w *treeWalk) sections(list []*Section, parent string, depth int) []*node {
	if depth > maxDepth {
		w.errs = append(w.errs, fmt.Errorf("prompt: sections under %q are nested more than %d deep", parent, maxDepth))
		return nil
	}
	keys := map[string]bool{}
	nodes := make([]*node, 0, len(list))
	for _, s := range list {
		if s.err != nil {
			w.errs = append(w.errs, s.err)
		}
		path := joinPath(parent, s.key)
		if keys[s.key] {
			w.errs = append(w.errs, fmt.Errorf("prompt: two sections have the path %q; give one a different key with prompt.WithKey", path))
		}
		keys[s.key] = true
		if !slices.Contains(w.p.paramTypes, s.params) {
			w.p.paramTypes = append(w.p.paramTypes, s.params)
		}
		w.hashes = append(w.hashes, hashedSection{Path: path, Hash: hashText(s.body)})
		for _, t := range s.tools {
			if owner, dup := w.toolOwner[t.Spec().Name]; dup {
				if owner == path {
					w.errs = append(w.errs, fmt.Errorf("prompt: section %q declares tool %q twice", path, t.Spec().Name))
				} else {
					w.errs = append(w.errs, fmt.Errorf("prompt: tool %q is declared by sections %q and %q; tool names must be unique in a prompt", t.Spec().Name, owner, path))
				}
				continue
			}
			w.toolOwner[t.Spec().Name] = path
			w.toolList = append(w.toolList, t)
		}
		n := &node{sec: s, path: path}
		n.children = w.sections(s.children, path, depth+1)
		nodes = append(nodes, n)
	}
	return nodes
}

// joinPath appends a section key to a section path.
func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "/" + key
}

// NS returns the prompt's namespace.
func (p *Prompt) NS() string { return p.ns }

// Key returns the prompt's key within its namespace.
func (p *Prompt) Key() string { return p.key }

// Descriptor returns the hashes of the prompt's section templates and tool
// contracts, as in every Rendered.
func (p *Prompt) Descriptor() Descriptor { return p.descriptor.clone() }

// Output returns the prompt's structured-output declaration, or nil.
func (p *Prompt) Output() *OutputSpec { return p.output }

// ParamTypes returns the params types the prompt's sections take, in the
// order of first use, depth first. Render accepts one value of each.
func (p *Prompt) ParamTypes() []reflect.Type { return slices.Clone(p.paramTypes) }

// typeList names the params types for messages.
func (p *Prompt) typeList() string {
	names := make([]string, len(p.paramTypes))
	for i, t := range p.paramTypes {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}

// Extend returns a new prompt with the same namespace, key, output and
// overrides as p and its sections followed by sections — for a caller that
// adds framing to a prompt it did not write, such as the subagent engine
// telling a child what it is. p is unchanged. The same construction checks
// as New apply: a section key or tool name that clashes is an error.
func (p *Prompt) Extend(sections ...*Section) (*Prompt, error) {
	parts := make([]Part, 0, len(p.sections)+len(sections)+1)
	for _, s := range p.sections {
		parts = append(parts, s)
	}
	for _, s := range sections {
		parts = append(parts, s)
	}
	parts = append(parts, partFunc(func(b *builder) {
		b.output, b.overrides, b.tag = p.output, p.overrides, p.tag
	}))
	return New(p.ns, p.key, parts...)
}
