package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/tools"
)

// Format returns d as the text of an agent file: YAML frontmatter, a
// blank line, then the prompt. It writes strictly what it reads leniently:
// the name must already be a valid agent name, the description one line of
// at most tools.MaxDescription characters, the prompt not empty, and every
// tools entry a tool name or pattern. The errors are *Diagnostic values,
// joined. Only the fields that are set are written; Source and Path are
// not.
func Format(d Definition) ([]byte, error) {
	if err := validateStrict(d); err != nil {
		return nil, err
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	// Tagged strings, so that a value such as null, ~, true or 12 is
	// quoted and reads back as the text it is.
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	list := func(items []string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, it := range items {
			n.Content = append(n.Content, str(it))
		}
		return n
	}
	add("name", str(d.Name))
	desc := str(strings.TrimSpace(d.Description))
	if strings.Contains(desc.Value, `\n`) {
		desc.Style = yaml.DoubleQuotedStyle // a plain \n would read back as a newline
	}
	add("description", desc)
	if d.Tools != nil {
		add("tools", list(d.Tools))
	}
	if len(d.DisallowedTools) > 0 {
		add("disallowedTools", list(d.DisallowedTools))
	}
	if strings.TrimSpace(d.Model) != "" {
		add("model", str(strings.TrimSpace(d.Model)))
	}
	if d.MaxTurns > 0 {
		add("maxTurns", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(d.MaxTurns)})
	}
	if d.Background {
		add("background", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if d.ForkContext {
		add("forkContext", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if len(d.Skills) > 0 {
		add("skills", list(d.Skills))
	}
	if len(d.MCPServers) > 0 {
		servers, err := serversNode(d.MCPServers)
		if err != nil {
			return nil, err
		}
		add("mcpServers", servers)
	}
	if r := strings.TrimSpace(lineEnds(d.CriticalSystemReminder)); r != "" {
		add("criticalSystemReminder", str(r))
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("agents: encode the frontmatter of %q: %w", d.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("agents: encode the frontmatter of %q: %w", d.Name, err)
	}
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimSpace(lineEnds(d.Prompt)))
	b.WriteString("\n")
	return b.Bytes(), nil
}

// lineEnds writes CRLF and lone CR line ends as \n, as an agent file is
// read: the prompt written is the prompt read back.
func lineEnds(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// serversNode writes MCP servers as a list of names and {name: config}
// entries.
func serversNode(servers []MCPServer) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range servers {
		if len(s.Config) == 0 {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s.Name})
			continue
		}
		var v map[string]any
		cfg := &yaml.Node{}
		if err := json.Unmarshal(s.Config, &v); err != nil || v == nil {
			return nil, &Diagnostic{Field: string(fMCPServers), Message: fmt.Sprintf("mcpServers: the configuration of server %q must be a JSON object", s.Name)}
		}
		if err := cfg.Encode(v); err != nil {
			return nil, fmt.Errorf("agents: encode the configuration of MCP server %q: %w", s.Name, err)
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: s.Name}, cfg,
		}})
	}
	return n, nil
}

// validateStrict checks d against the rules for files offshoot writes.
func validateStrict(d Definition) error {
	var errs []error
	bad := func(f field, format string, args ...any) {
		errs = append(errs, &Diagnostic{Agent: d.Name, Field: string(f), Message: fmt.Sprintf(format, args...)})
	}
	if !nameRE.MatchString(d.Name) {
		bad(fName, "name %s must be 1 to 64 lower-case letters, digits and hyphens, starting with a letter or digit (such as %s)", quote(d.Name), quote(slugify(d.Name)))
	}
	desc := strings.TrimSpace(d.Description)
	switch n := utf8.RuneCountInString(desc); {
	case n == 0:
		bad(fDescription, "description is required: say in one line when the main agent should use this agent")
	case strings.ContainsAny(desc, "\r\n"):
		bad(fDescription, "description must be one line; put examples in the prompt instead")
	case n > tools.MaxDescription:
		bad(fDescription, "description is %d characters long; shorten it to at most %d", n, tools.MaxDescription)
	}
	if strings.TrimSpace(d.Prompt) == "" {
		bad(fPrompt, "prompt is required: give the agent's system prompt")
	}
	for _, list := range []struct {
		f       field
		entries []string
	}{{fTools, d.Tools}, {fDisallowed, d.DisallowedTools}} {
		for _, t := range list.entries {
			if _, err := path.Match(t, ""); err != nil || t == "" || strings.ContainsAny(t, " ,()\n") || !utf8.ValidString(t) {
				bad(list.f, "%s in %s must be a tool name or a pattern such as \"mcp__github__*\"", quote(t), list.f)
			}
		}
	}
	// Text that is not UTF-8 would be written as a !!binary value (or, in
	// the prompt, read back with its bytes replaced): the file would not
	// load as it was written.
	for _, text := range []struct {
		f      field
		values []string
	}{
		{fDescription, []string{d.Description}}, {fPrompt, []string{d.Prompt}}, {fModel, []string{d.Model}},
		{fReminder, []string{d.CriticalSystemReminder}}, {fMCPServers, serverNames(d.MCPServers)},
	} {
		if !slices.ContainsFunc(text.values, func(v string) bool { return !utf8.ValidString(v) }) {
			continue
		}
		bad(text.f, "%s is not valid UTF-8 text; write it in UTF-8", text.f)
	}
	for _, sk := range d.Skills {
		if strings.TrimSpace(sk) != sk || sk == "" || strings.ContainsAny(sk, " \t\r\n,()") || !utf8.ValidString(sk) {
			bad(fSkills, "%s in skills must be a skill name, without spaces or commas", quote(sk))
		}
	}
	if strings.ContainsAny(d.Model, "\r\n") {
		bad(fModel, "model must be one word such as light, main or inherit")
	}
	if d.MaxTurns < 0 || d.MaxTurns > maxMaxTurns {
		bad(fMaxTurns, "maxTurns must be from 1 to %d, or 0 for the default", maxMaxTurns)
	}
	for _, s := range d.MCPServers {
		if strings.TrimSpace(s.Name) == "" {
			bad(fMCPServers, "mcpServers: a server's name is empty")
		}
	}
	return errors.Join(errs...)
}

func serverNames(servers []MCPServer) []string {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	return names
}
