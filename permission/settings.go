package permission

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// maxSettings bounds a settings file, in bytes; maxRules the rules of one
// list.
const (
	maxSettings = 1 << 20
	maxRules    = 1000
)

// Mode is a permission mode: how calls no rule decides are treated.
type Mode string

// Claude Code's permission modes.
const (
	// Default asks about a call no rule allows.
	Default Mode = "default"
	// AcceptEdits allows file changes without asking.
	AcceptEdits Mode = "acceptEdits"
	// Plan runs no tool that changes anything.
	Plan Mode = "plan"
	// BypassPermissions allows every call no deny rule refuses.
	BypassPermissions Mode = "bypassPermissions"
	// DontAsk denies every call no rule allows, instead of asking.
	DontAsk Mode = "dontAsk"
)

// Settings are the permissions of a Claude Code settings file
// (.claude/settings.json, .claude/settings.local.json,
// ~/.claude/settings.json): its rules and its mode.
type Settings struct {
	// Allow, Deny and Ask are the rules of "allow", "deny" and "ask".
	Allow, Deny, Ask Rules
	// DefaultMode is "defaultMode"; Default when the file names none.
	DefaultMode Mode
}

// ParseSettings reads the "permissions" of a settings file's JSON; its
// other keys (hooks, env, …) are not read here. JSON that is not an object,
// or a file over 1 MiB, is an error. A rule that cannot be read, an
// unknown mode, or a list of more than 1,000 rules is a warning, and the
// rest is kept, as Claude Code keeps it.
func ParseSettings(data []byte) (s Settings, warnings []string, err error) {
	s.DefaultMode = Default
	if len(data) > maxSettings {
		return s, nil, fmt.Errorf("the settings are %d bytes long; a settings file holds at most %d", len(data), maxSettings)
	}
	var file struct {
		Permissions *struct {
			Allow       []json.RawMessage `json:"allow"`
			Deny        []json.RawMessage `json:"deny"`
			Ask         []json.RawMessage `json:"ask"`
			DefaultMode *string           `json:"defaultMode"`
		} `json:"permissions"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&file); err != nil {
		return s, nil, fmt.Errorf("the settings are not a JSON object with \"permissions\": {\"allow\": […], \"deny\": […]}: %v", err)
	}
	p := file.Permissions
	if p == nil {
		return s, nil, nil
	}
	read := func(key string, raw []json.RawMessage) Rules {
		var out Rules
		for i, r := range raw {
			if i == maxRules {
				warnings = append(warnings, fmt.Sprintf("permissions.%s: more than %d rules; the others are not read", key, maxRules))
				break
			}
			var text string
			if err := json.Unmarshal(r, &text); err != nil {
				warnings = append(warnings, fmt.Sprintf("permissions.%s[%d]: a rule is a string such as \"Bash(go test:*)\"; this one is not read", key, i))
				continue
			}
			rule, err := ParseRule(text)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("permissions.%s[%d]: %v; this one is not read", key, i, err))
				continue
			}
			out = append(out, rule)
		}
		return out
	}
	s.Allow, s.Deny, s.Ask = read("allow", p.Allow), read("deny", p.Deny), read("ask", p.Ask)
	if p.DefaultMode != nil {
		switch m := Mode(*p.DefaultMode); m {
		case Default, AcceptEdits, Plan, BypassPermissions, DontAsk:
			s.DefaultMode = m
		default:
			warnings = append(warnings, fmt.Sprintf("permissions.defaultMode %q is not a mode: use default, acceptEdits, plan, bypassPermissions or dontAsk; default is used", clip(*p.DefaultMode)))
		}
	}
	return s, warnings, nil
}
