package agents

import (
	"errors"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
)

// inherits reports whether a model value leaves the choice to the next
// level: empty or "inherit".
func inherits(name string) bool {
	n := strings.TrimSpace(name)
	return n == "" || strings.EqualFold(n, model.Inherit)
}

// family returns the Claude model family a name belongs to ("opus",
// "sonnet" or "haiku", as in "claude-sonnet-4-20250514"), or "".
func family(name string) string {
	n := strings.ToLower(name)
	for _, f := range []string{"opus", "sonnet", "haiku"} {
		if strings.Contains(n, f) {
			return f
		}
	}
	return ""
}

// routerModel resolves name through r: as the router knows it, else by its
// Claude family (a full model id the router does not know resolves as
// "sonnet", "opus" or "haiku"). It returns the model and the router's name
// for it (model.Router.ModelName): an alias is reported by the model it
// leads to ("haiku" as "light"), a model of the router's own by its name.
// name must not inherit.
func routerModel(r *model.Router, name string) (model.Model, string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	m, err := r.Resolve(n, nil)
	if err != nil {
		f := family(n)
		if f == "" || f == n {
			return nil, "", err
		}
		fm, ferr := r.Resolve(f, nil)
		if ferr != nil {
			return nil, "", err
		}
		m, n = fm, f
	}
	if canonical, ok := r.ModelName(n); ok {
		n = canonical
	}
	return m, n, nil
}

// ResolveModel chooses the model of a child run of d and returns it with
// the name to report it by: the router's name for the model (main, light,
// a configured name; an alias such as haiku is reported by the model it
// leads to), or parentName for the caller's model. The first of these that names a model wins:
// call (the model the delegating call asked for), d.Model, then the
// caller's model (parent, reported as parentName). Empty and "inherit" pass
// the choice on. Names resolve through r: main, light, configured names,
// aliases (sonnet and opus mean main and haiku light unless configured
// otherwise), and full Claude model ids by family.
//
// A call's model that r does not know is an error matching
// model.ErrUnknownModel. A d.Model r does not know passes the choice on
// (loading the definition warned about it). With a nil parent the caller's
// model is parentName resolved through r, or r's main model.
func (d Definition) ResolveModel(r *model.Router, call string, parent model.Model, parentName string) (model.Model, string, error) {
	if !inherits(call) {
		if r == nil {
			return nil, "", errors.New("agents: a model name was asked for but no model router is configured; give ResolveModel a *model.Router")
		}
		return routerModel(r, call)
	}
	if !inherits(d.Model) && r != nil {
		if m, name, err := routerModel(r, d.Model); err == nil {
			return m, name, nil
		}
	}
	if parent != nil {
		return parent, parentName, nil
	}
	if r == nil {
		return nil, "", errors.New("agents: no model to run the agent with; give ResolveModel the caller's model or a *model.Router")
	}
	if !inherits(parentName) {
		if m, name, err := routerModel(r, parentName); err == nil {
			return m, name, nil
		}
	}
	return r.Main(), model.Main, nil
}
