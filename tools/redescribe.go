package tools

import "github.com/offshoot-dev/offshoot/session"

// Redescribe returns t with its description replaced, everything else (name,
// schemas, handler, Installer, State) unchanged. The prompt package uses it
// to apply description overrides. The description is trimmed and checked as
// New checks it.
func Redescribe(t Tool, description string) (Tool, error) {
	if t == nil {
		return nil, errNilTool
	}
	desc, err := cleanDescription(t.Name(), description)
	if err != nil {
		return nil, err
	}
	switch w := t.(type) {
	case *redescribedInstaller:
		t = w.Tool
	case *redescribed:
		t = w.Tool
	}
	r := redescribed{Tool: t, description: desc}
	if in, ok := installerOf(t); ok {
		return &redescribedInstaller{redescribed: r, installer: in}, nil
	}
	return &r, nil
}

// redescribed is a tool with another description.
type redescribed struct {
	Tool
	description string
}

func (r *redescribed) Description() string { return r.description }

// Unwrap returns the tool with its own description.
func (r *redescribed) Unwrap() Tool { return r.Tool }

// redescribedInstaller is a redescribed Installer, so that a type
// assertion to Installer holds for it as for the tool it wraps.
type redescribedInstaller struct {
	redescribed
	installer Installer
}

func (r *redescribedInstaller) Install(s *session.Session) error { return r.installer.Install(s) }
