package tools

// Redescribe returns t with its description replaced, everything else
// (name, schemas, call, state, reducers) unchanged. The prompt package
// uses it to apply description overrides. The description is trimmed and
// checked as New checks it.
func Redescribe(t Tool, description string) (Tool, error) {
	if t == nil {
		return nil, errNilTool
	}
	spec := t.Spec()
	desc, err := cleanDescription(spec.Name, description)
	if err != nil {
		return nil, err
	}
	if r, ok := t.(*redescribed); ok {
		t = r.Tool
	}
	spec.Description = desc
	return &redescribed{Tool: t, spec: spec}, nil
}

// redescribed is a tool with another description.
type redescribed struct {
	Tool
	spec Spec
}

func (r *redescribed) Spec() Spec { return r.spec }
