package agents

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/internal/frontmatter"
)

// field is a key of a definition, in its canonical spelling.
type field string

const (
	fName        field = "name"
	fDescription field = "description"
	fPrompt      field = "prompt"
	fTools       field = "tools"
	fDisallowed  field = "disallowedTools"
	fModel       field = "model"
	fMaxTurns    field = "maxTurns"
	fBackground  field = "background"
	fForkContext field = "forkContext"
	fSkills      field = "skills"
	fMCPServers  field = "mcpServers"
	fReminder    field = "criticalSystemReminder"
)

// fieldNames maps a key, lower-cased and without '_' and '-', to its field:
// "maxTurns", "max_turns" and "max-turns" are one key.
var fieldNames = map[string]field{
	"name": fName, "description": fDescription, "prompt": fPrompt,
	"tools": fTools, "allowedtools": fTools, "disallowedtools": fDisallowed,
	"model": fModel, "maxturns": fMaxTurns, "background": fBackground,
	"forkcontext": fForkContext, "skills": fSkills, "mcpservers": fMCPServers,
	"criticalsystemreminder": fReminder, "criticalsystemreminderexperimental": fReminder,
}

// fieldOf returns the field a key names; ok is false for keys this
// package ignores (color, category, …).
func fieldOf(key string) (f field, ok bool) {
	if len(key) > 40 {
		return "", false
	}
	var buf [40]byte
	k := buf[:0]
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			k = append(k, c+'a'-'A')
		default:
			k = append(k, c)
		}
	}
	f, ok = fieldNames[string(k)]
	return f, ok
}

// maxMaxTurns is the largest maxTurns accepted.
const maxMaxTurns = 10000

// maxEntries is the most entries a list (tools, skills, mcpServers) may
// have; real files list a few dozen at most.
const maxEntries = 1000

// draft is a definition as read from one source, before the checks every
// source shares (see finish).
type draft struct {
	def   Definition
	path  string
	line  int           // where the definition starts
	lines map[field]int // where each given key is
	// emptyTools is set for tools: "" (an empty string, not a list).
	emptyTools bool
	// errs and warns are the problems found in it.
	errs, warns []*Diagnostic
	// unreadable is set when the definition could not be read at all, so
	// that checking its fields would only repeat that.
	unreadable bool
}

// fail records an error about key f on line.
func (d *draft) fail(line int, f field, msg string) {
	d.errs = append(d.errs, &Diagnostic{Path: d.path, Line: line, Field: string(f), Message: msg})
}

// failed reports whether an error about key f was recorded.
func (d *draft) failed(f field) bool {
	for _, e := range d.errs {
		if e.Field == string(f) {
			return true
		}
	}
	return false
}

// warn records a warning about key f on line.
func (d *draft) warn(line int, f field, msg string) {
	d.warns = append(d.warns, &Diagnostic{Path: d.path, Line: line, Field: string(f), Message: msg})
}

// lineOf returns the line of f's key, or of the definition.
func (d *draft) lineOf(f field) int {
	if l, ok := d.lines[f]; ok {
		return l
	}
	return d.line
}

// decodeFields reads the keys of m into d. Unknown keys are ignored; a
// key given twice keeps its first value; a value of the wrong type is an
// error.
func decodeFields(m *yaml.Node, d *draft) {
	if d.lines == nil {
		d.lines = map[field]int{}
	}
	warned := map[field]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		f, ok := fieldOf(k.Value)
		if !ok {
			continue
		}
		if first, dup := d.lines[f]; dup {
			if !warned[f] {
				warned[f] = true
				d.warn(k.Line, f, fmt.Sprintf("%s is given more than once (first on line %d); the first one counts", f, first))
			}
			continue
		}
		d.lines[f] = k.Line
		decodeField(f, k.Value, v, d)
	}
}

// decodeField reads the value v of key (field f) into d.
func decodeField(f field, key string, v *yaml.Node, d *draft) {
	bad := func(want string) {
		d.fail(v.Line, f, fmt.Sprintf("%s must be %s, not %s", key, want, describeNode(v)))
	}
	if v == nil {
		return
	}
	if tag := customTag(v); tag != "" {
		d.fail(v.Line, f, fmt.Sprintf("%s: the YAML tag %s is not allowed; write the value without a tag", key, tag))
		return
	}
	def := &d.def
	switch f {
	case fName, fDescription, fPrompt, fModel, fReminder:
		s, ok := text(v)
		if !ok {
			bad("text")
			return
		}
		switch f {
		case fName:
			def.Name = s
		case fDescription:
			if v.Style == 0 && v.Tag != "!!null" {
				s = strings.ReplaceAll(s, `\n`, "\n")
			}
			def.Description = s
		case fPrompt:
			def.Prompt = s
		case fModel:
			def.Model = s
		default:
			def.CriticalSystemReminder = s
		}
	case fTools, fDisallowed, fSkills:
		list, ok := names(v)
		if !ok {
			bad("a comma-separated list or a YAML list of names")
			return
		}
		if len(list) > maxEntries {
			d.fail(v.Line, f, fmt.Sprintf("%s lists %d entries; give at most %d", key, len(list), maxEntries))
			return
		}
		switch f {
		case fTools:
			def.Tools = list
			d.emptyTools = list == nil && v.Kind == yaml.ScalarNode && v.Tag != "!!null"
		case fDisallowed:
			def.DisallowedTools = list
		default:
			def.Skills = list
		}
	case fMaxTurns:
		n, err := strconv.Atoi(strings.TrimSpace(v.Value))
		if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > maxMaxTurns {
			bad(fmt.Sprintf("a whole number from 1 to %d", maxMaxTurns))
			return
		}
		def.MaxTurns = n
	case fBackground, fForkContext:
		b, ok := boolean(v)
		if !ok {
			bad("true or false")
			return
		}
		if f == fBackground {
			def.Background = b
		} else {
			def.ForkContext = b
		}
	case fMCPServers:
		def.MCPServers = mcpServers(v, key, d)
		if len(def.MCPServers) > maxEntries {
			d.fail(v.Line, f, fmt.Sprintf("%s lists %d servers; give at most %d", key, len(def.MCPServers), maxEntries))
			def.MCPServers = nil
		}
	}
}

// resolveAlias follows YAML aliases to the node they name.
func resolveAlias(v *yaml.Node) *yaml.Node {
	for i := 0; v != nil && v.Kind == yaml.AliasNode && i < 8; i++ {
		v = v.Alias
	}
	return v
}

// customTag returns the first tag under v that is not one of YAML's core
// schema, or "".
func customTag(v *yaml.Node) string {
	switch v.Tag {
	case "", "!", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq", "!!timestamp":
	default:
		return v.Tag
	}
	for _, c := range v.Content {
		if t := customTag(c); t != "" {
			return t
		}
	}
	return ""
}

// describeNode names the kind of v for error messages.
func describeNode(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a set of keys"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if v.Tag == "!!null" {
		return "empty"
	}
	return quote(v.Value)
}

// text returns the text of a scalar ("" for null).
func text(v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode {
		return "", false
	}
	if v.Tag == "!!null" {
		return "", true
	}
	return v.Value, true
}

// names reads a list of names: null (absent: nil), text split at commas
// and spaces outside parentheses, or a list of such texts. An empty text
// gives nil; an empty list gives an empty, non-nil slice.
func names(v *yaml.Node) ([]string, bool) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, true
		}
		return frontmatter.SplitToolList(v.Value), true
	case yaml.SequenceNode:
		out := []string{}
		for _, item := range v.Content {
			item = resolveAlias(item)
			if item == nil || item.Kind != yaml.ScalarNode {
				return nil, false
			}
			if item.Tag != "!!null" {
				out = append(out, frontmatter.SplitToolList(item.Value)...)
			}
		}
		return out, true
	}
	return nil, false
}

// boolean reads true/false (and yes/no, on/off written as text).
func boolean(v *yaml.Node) (bool, bool) {
	if v.Kind != yaml.ScalarNode {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(v.Value)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// mcpServers reads mcpServers: a list whose items are server names or
// {name: config} sets, a {name: config} set, or names as text.
func mcpServers(v *yaml.Node, key string, d *draft) []MCPServer {
	var out []MCPServer
	inline := func(m *yaml.Node) bool {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, cfg := m.Content[i], resolveAlias(m.Content[i+1])
			if k.Kind != yaml.ScalarNode || k.Value == "" {
				d.fail(k.Line, fMCPServers, key+": a server's name must be text")
				return false
			}
			if cfg == nil || cfg.Tag == "!!null" {
				out = append(out, MCPServer{Name: k.Value})
				continue
			}
			if cfg.Kind != yaml.MappingNode {
				d.fail(cfg.Line, fMCPServers, fmt.Sprintf("%s: the configuration of server %s must be a set of keys such as command and args, not %s", key, quote(k.Value), describeNode(cfg)))
				return false
			}
			raw, err := nodeJSON(cfg)
			if err != nil {
				d.fail(cfg.Line, fMCPServers, fmt.Sprintf("%s: the configuration of server %s cannot be read as JSON: %v", key, quote(k.Value), err))
				return false
			}
			out = append(out, MCPServer{Name: k.Value, Config: raw})
		}
		return true
	}
	switch v.Kind {
	case yaml.ScalarNode:
		list, _ := names(v)
		for _, n := range list {
			out = append(out, MCPServer{Name: n})
		}
	case yaml.MappingNode:
		if !inline(v) {
			return nil
		}
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolveAlias(item)
			switch {
			case item == nil:
			case item.Kind == yaml.ScalarNode && item.Tag != "!!null":
				out = append(out, MCPServer{Name: strings.TrimSpace(item.Value)})
			case item.Kind == yaml.MappingNode:
				if !inline(item) {
					return nil
				}
			default:
				d.fail(item.Line, fMCPServers, fmt.Sprintf("%s: each entry must be a server name or a server's configuration, not %s", key, describeNode(item)))
				return nil
			}
		}
	}
	return out
}

// nodeJSON encodes the YAML value n as JSON.
func nodeJSON(n *yaml.Node) (raw json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			raw, err = nil, fmt.Errorf("%v", v)
		}
	}()
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
