package prompt

import (
	"errors"
	"strings"

	"github.com/offshoot-dev/offshoot/tools"
)

// redescribe returns t with its description replaced by an override's,
// everything else (name, schemas, call, state, reducers) unchanged. The
// description is trimmed and checked as tools.New checks it.
func redescribe(t tools.Tool, description string) (tools.Tool, error) {
	if t == nil {
		return nil, errors.New("prompt: no tool to redescribe")
	}
	if r, ok := t.(*redescribed); ok {
		t = r.Tool
	}
	spec := t.Spec()
	spec.Description = strings.TrimSpace(description)
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	return &redescribed{Tool: t, spec: spec}, nil
}

// redescribed is a tool with another description.
type redescribed struct {
	tools.Tool
	spec tools.Spec
}

func (r *redescribed) Spec() tools.Spec { return r.spec }
