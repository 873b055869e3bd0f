package prompt

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"text/template"

	"github.com/offshoot-dev/offshoot/tools"
)

// Override is a stored replacement of some of a prompt's section bodies
// and tool descriptions, for one tag (such as "latest" or "experiment-b").
// Each entry carries the hash, from the prompt's Descriptor, of the section
// template or tool contract it was written for; an entry whose hash no
// longer matches is stale and never applied.
type Override struct {
	// NS and Key identify the prompt.
	NS string `json:"ns"`
	// Key is the prompt's key.
	Key string `json:"key"`
	// Tag names this set of overrides.
	Tag string `json:"tag"`
	// Sections replace section bodies, by section path.
	Sections map[string]SectionOverride `json:"sections,omitempty"`
	// Tools replace tool descriptions, by tool name.
	Tools map[string]ToolOverride `json:"tools,omitempty"`
}

// SectionOverride replaces one section's template body.
type SectionOverride struct {
	// Hash is the section's hash in the Descriptor it was written for.
	Hash string `json:"hash"`
	// Body is the replacement template (dedented and trimmed when used).
	Body string `json:"body"`
}

// ToolOverride replaces one tool's description.
type ToolOverride struct {
	// Hash is the tool's contract hash in the Descriptor it was written for.
	Hash string `json:"hash"`
	// Description is the replacement description.
	Description string `json:"description"`
}

// OverrideSection returns an override of the section at path with body,
// carrying the section's current hash.
func (d Descriptor) OverrideSection(path, body string) (SectionOverride, error) {
	h, ok := d.SectionHash(path)
	if !ok {
		return SectionOverride{}, fmt.Errorf("prompt: %s/%s has no section %q", d.NS, d.Key, path)
	}
	return SectionOverride{Hash: h, Body: body}, nil
}

// OverrideTool returns an override of the tool named name with
// description, carrying the tool's current contract hash.
func (d Descriptor) OverrideTool(name, description string) (ToolOverride, error) {
	h, ok := d.ToolHash(name)
	if !ok {
		return ToolOverride{}, fmt.Errorf("prompt: %s/%s has no tool %q", d.NS, d.Key, name)
	}
	return ToolOverride{Hash: h, Description: description}, nil
}

// OverrideStore gives a prompt its overrides at render. Load returns nil
// and no error when the store holds none for (ns, key, tag). FileStore is
// the file-backed implementation.
type OverrideStore interface {
	Load(ns, key, tag string) (*Override, error)
}

// WithOverrides makes the prompt look up overrides tagged tag in store at
// every render. Without it, overrides are off.
func WithOverrides(store OverrideStore, tag string) Part {
	return partFunc(func(b *builder) {
		if store == nil {
			b.errs = append(b.errs, errors.New("prompt: WithOverrides needs a store, such as prompt.FileStore{Dir: \".offshoot/prompts/overrides\"}"))
			return
		}
		if err := checkKey("override tag", tag); err != nil {
			b.errs = append(b.errs, fmt.Errorf("prompt: WithOverrides: %w", err))
			return
		}
		b.overrides, b.tag = store, tag
	})
}

// OverrideReport says which overrides a render applied and which it
// ignored, and why.
type OverrideReport struct {
	// Tag is the override tag looked up.
	Tag string
	// Applied lists the overrides applied.
	Applied []OverrideTarget
	// Ignored lists the overrides not applied: stale (the section or tool
	// changed since the override was written), unknown, or invalid. A
	// store that failed to load appears with Kind "store".
	Ignored []IgnoredOverride
}

// OverrideTarget names what an override entry replaces.
type OverrideTarget struct {
	// Kind is "section" or "tool" ("store" for a store failure).
	Kind string
	// Name is the section path or the tool name.
	Name string
}

// IgnoredOverride is an override entry a render did not apply.
type IgnoredOverride struct {
	OverrideTarget
	// Reason says why.
	Reason string
}

// overlay is what overrides change in one render.
type overlay struct {
	bodies map[string]*template.Template // by section path
	tools  map[string]tools.Tool         // redescribed tools, by name
	report *OverrideReport
}

// loadOverlay loads the prompt's overrides and keeps the entries that
// still match its descriptor. It returns nil when overrides are off.
func (p *Prompt) loadOverlay() *overlay {
	if p.overrides == nil {
		return nil
	}
	ov := &overlay{report: &OverrideReport{Tag: p.tag}}
	o, err := p.overrides.Load(p.ns, p.key, p.tag)
	if err != nil {
		ov.ignore("store", p.tag, err.Error())
		return ov
	}
	if o == nil {
		return ov
	}
	for _, path := range slices.Sorted(maps.Keys(o.Sections)) {
		so := o.Sections[path]
		n := p.find(path)
		want, _ := p.descriptor.SectionHash(path)
		switch {
		case n == nil:
			ov.ignore("section", path, "the prompt has no such section")
		case so.Hash != want:
			ov.ignore("section", path, "stale: the section's template changed since the override was written")
		default:
			tmpl, err := p.compileOverride(n, so.Body)
			if err != nil {
				ov.ignore("section", path, "invalid: "+err.Error())
				continue
			}
			if ov.bodies == nil {
				ov.bodies = map[string]*template.Template{}
			}
			ov.bodies[path] = tmpl
			ov.apply("section", path)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Tools)) {
		to := o.Tools[name]
		want, found := p.descriptor.ToolHash(name)
		switch {
		case !found:
			ov.ignore("tool", name, "the prompt has no such tool")
		case to.Hash != want:
			ov.ignore("tool", name, "stale: the tool's contract changed since the override was written")
		default:
			re, err := redescribe(p.tool(name), to.Description)
			if err != nil {
				ov.ignore("tool", name, "invalid: "+err.Error())
				continue
			}
			if ov.tools == nil {
				ov.tools = map[string]tools.Tool{}
			}
			ov.tools[name] = re
			ov.apply("tool", name)
		}
	}
	return ov
}

func (ov *overlay) ignore(kind, name, reason string) {
	ov.report.Ignored = append(ov.report.Ignored, IgnoredOverride{OverrideTarget{kind, name}, reason})
}

func (ov *overlay) apply(kind, name string) {
	ov.report.Applied = append(ov.report.Applied, OverrideTarget{kind, name})
}

// fallBack records that the override of the section at path failed to
// render, so the original body was used.
func (ov *overlay) fallBack(path string, err error) {
	ov.report.Applied = slices.DeleteFunc(ov.report.Applied, func(t OverrideTarget) bool {
		return t == OverrideTarget{"section", path}
	})
	ov.ignore("section", path, "invalid: it failed to render, so the original body was used: "+err.Error())
}

// body returns the override template of the section at path, or nil.
func (ov *overlay) body(path string) *template.Template {
	if ov == nil {
		return nil
	}
	return ov.bodies[path]
}

// tool returns t, or its redescribed replacement.
func (ov *overlay) tool(t tools.Tool) tools.Tool {
	if ov == nil {
		return t
	}
	if re, ok := ov.tools[t.Spec().Name]; ok {
		return re
	}
	return t
}

// sortReport orders the report's entries by kind and name.
func (ov *overlay) sortReport() {
	cmpTarget := func(a, b OverrideTarget) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	}
	slices.SortFunc(ov.report.Applied, cmpTarget)
	slices.SortFunc(ov.report.Ignored, func(a, b IgnoredOverride) int { return cmpTarget(a.OverrideTarget, b.OverrideTarget) })
}

// overrideKey identifies a compiled override body.
type overrideKey struct{ path, body string }

// compileOverride parses and checks an override body for the section at n,
// once per body.
func (p *Prompt) compileOverride(n *node, body string) (*template.Template, error) {
	k := overrideKey{n.path, body}
	if v, ok := p.compiled.Load(k); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*template.Template), nil
	}
	tmpl, err := compile(n.sec.key, dedent(body), n.sec.params)
	var v any = tmpl
	if err != nil {
		v = err
	}
	p.compiled.Store(k, v)
	return tmpl, err
}

// tool returns the prompt's tool named name, or nil.
func (p *Prompt) tool(name string) tools.Tool {
	for _, t := range p.tools {
		if t.Spec().Name == name {
			return t
		}
	}
	return nil
}

// find returns the node at path, or nil.
func (p *Prompt) find(path string) *node {
	var walk func([]*node) *node
	walk = func(ns []*node) *node {
		for _, n := range ns {
			if n.path == path {
				return n
			}
			if found := walk(n.children); found != nil {
				return found
			}
		}
		return nil
	}
	return walk(p.tree)
}
