package prompt

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// checkFields walks the parse trees of tmpl for .Field chains and checks
// them against the params type pt: the dot starts as pt, becomes the value
// of `with` and the element of `range`, and $ is pt. It is best effort:
// where a type cannot be known (results of functions, variables other than
// $, interfaces, bodies of defined templates) checking stops.
func checkFields(tmpl *template.Template, pt reflect.Type) error {
	var errs []error
	for _, t := range tmpl.Templates() {
		if t.Tree == nil || t.Root == nil {
			continue
		}
		c := fieldChecker{root: pt, seen: map[string]bool{}}
		if t.Name() != tmpl.Name() {
			c.root = nil // a defined template's dot is whatever it is called with
		}
		c.list(t.Root, c.root)
		errs = append(errs, c.errs...)
	}
	return errors.Join(errs...)
}

type fieldChecker struct {
	root reflect.Type
	errs []error
	seen map[string]bool
}

func (c *fieldChecker) list(l *parse.ListNode, dot reflect.Type) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		c.node(n, dot)
	}
}

func (c *fieldChecker) node(n parse.Node, dot reflect.Type) {
	switch n := n.(type) {
	case *parse.ActionNode:
		c.pipe(n.Pipe, dot)
	case *parse.IfNode:
		c.pipe(n.Pipe, dot)
		c.list(n.List, dot)
		c.list(n.ElseList, dot)
	case *parse.WithNode:
		c.list(n.List, c.pipe(n.Pipe, dot))
		c.list(n.ElseList, dot)
	case *parse.RangeNode:
		c.list(n.List, elemType(c.pipe(n.Pipe, dot)))
		c.list(n.ElseList, dot)
	case *parse.TemplateNode:
		c.pipe(n.Pipe, dot)
	case *parse.ListNode:
		c.list(n, dot)
	}
}

// pipe checks a pipeline and returns the type of its value, or nil when
// it cannot be known.
func (c *fieldChecker) pipe(p *parse.PipeNode, dot reflect.Type) reflect.Type {
	if p == nil {
		return nil
	}
	var last reflect.Type
	for _, cmd := range p.Cmds {
		last = c.command(cmd, dot)
	}
	return last
}

// command checks a command's operands and returns the type of its value
// when it is a plain operand (not a function call).
func (c *fieldChecker) command(cmd *parse.CommandNode, dot reflect.Type) reflect.Type {
	var first reflect.Type
	for i, arg := range cmd.Args {
		t := c.operand(arg, dot)
		if i == 0 {
			first = t
		}
	}
	if len(cmd.Args) == 0 {
		return nil
	}
	if _, isFunc := cmd.Args[0].(*parse.IdentifierNode); isFunc {
		return nil
	}
	return first
}

func (c *fieldChecker) operand(n parse.Node, dot reflect.Type) reflect.Type {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		return c.chain(dot, n.Ident, n.String())
	case *parse.VariableNode:
		if len(n.Ident) > 0 && n.Ident[0] == "$" {
			return c.chain(c.root, n.Ident[1:], n.String())
		}
	case *parse.ChainNode:
		var base reflect.Type
		switch inner := n.Node.(type) {
		case *parse.PipeNode:
			base = c.pipe(inner, dot)
		default:
			base = c.operand(inner, dot)
		}
		return c.chain(base, n.Field, n.String())
	case *parse.PipeNode:
		return c.pipe(n, dot)
	}
	return nil
}

// chain resolves the field names idents from t and reports the first one t
// lacks. It returns the type of the last field, or nil when unknown.
func (c *fieldChecker) chain(t reflect.Type, idents []string, ref string) reflect.Type {
	for _, name := range idents {
		if t == nil {
			return nil
		}
		next, ok, known := member(t, name)
		if !known {
			return nil
		}
		if !ok {
			if !c.seen[ref] {
				c.seen[ref] = true
				c.errs = append(c.errs, fmt.Errorf("the template refers to %s, but %s has no field or method %s", ref, describeType(t), name))
			}
			return nil
		}
		t = next
	}
	return t
}

// member looks up the field or method name of t as text/template does.
// known is false when t's members cannot be known (interfaces, maps
// without string keys).
func member(t reflect.Type, name string) (next reflect.Type, ok, known bool) {
	if t.Kind() == reflect.Interface {
		return nil, false, false
	}
	withPointer := t
	if t.Kind() != reflect.Pointer {
		withPointer = reflect.PointerTo(t)
	}
	if m, found := withPointer.MethodByName(name); found {
		return methodResult(m.Type), true, true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		f, found := t.FieldByName(name)
		if !found || !f.IsExported() {
			return nil, false, true
		}
		return f.Type, true, true
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return t.Elem(), true, true
		}
		return nil, false, false
	case reflect.Interface:
		return nil, false, false
	}
	return nil, false, true
}

// methodResult is the type of a method's first result, or nil.
func methodResult(ft reflect.Type) reflect.Type {
	if ft.NumOut() == 0 {
		return nil
	}
	return ft.Out(0)
}

// elemType is the type of the dot inside {{range}} over a value of type t.
func elemType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
		return t.Elem()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return t
	}
	return nil
}

// describeType names t for messages, as "prompt_test.Params" or "string".
func describeType(t reflect.Type) string {
	s := t.String()
	if strings.HasPrefix(s, "struct {") {
		return "the params struct"
	}
	return s
}
