package agents

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// configFile is what this package reads of a config.json: its "agents"
// (a mapping node, or nil) and the names of its "mcpServers". Other keys
// ("models", …) belong to other packages and are ignored.
type configFile struct {
	agents  *yaml.Node
	servers []string
}

// parseConfig reads a config.json. A file that is not a JSON object, or
// whose "agents" is not an object, is an error.
func parseConfig(path string, data []byte) (configFile, *Diagnostic) {
	text, _ := normalize(data)
	root, err := jsonNode([]byte(text))
	if err != nil {
		return configFile{}, &Diagnostic{Path: path, Message: fmt.Sprintf("not valid JSON: %v; fix the file (its agents are not loaded)", err)}
	}
	if root.Kind != yaml.MappingNode {
		return configFile{}, &Diagnostic{Path: path, Line: root.Line, Message: "the file must hold a JSON object such as {\"agents\": {…}}"}
	}
	var c configFile
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "agents":
			if v.Kind != yaml.MappingNode {
				return configFile{}, &Diagnostic{Path: path, Line: v.Line, Field: "agents",
					Message: "\"agents\" must be an object whose keys are agent names: {\"agents\": {\"code-reviewer\": {\"description\": …, \"prompt\": …}}}"}
			}
			if c.agents == nil {
				c.agents = v
			}
		case "mcpServers":
			if v.Kind == yaml.MappingNode {
				for j := 0; j < len(v.Content); j += 2 {
					c.servers = append(c.servers, v.Content[j].Value)
				}
			}
		}
	}
	return c, nil
}

// agentDrafts reads the entries of an agents object (of config.json or of
// --agents): each key is an agent's name, each value its definition.
func agentDrafts(path string, agents *yaml.Node, src Source) []*draft {
	var out []*draft
	for i := 0; agents != nil && i+1 < len(agents.Content); i += 2 {
		k, v := agents.Content[i], agents.Content[i+1]
		d := &draft{path: path, line: k.Line, def: Definition{Source: src, Path: path}}
		out = append(out, d)
		if v.Kind != yaml.MappingNode {
			d.def.Name, d.unreadable = k.Value, true
			d.fail(v.Line, "", fmt.Sprintf("the definition of %s must be an object with description and prompt, not %s", quote(k.Value), describeNode(v)))
			continue
		}
		decodeFields(v, d)
		if given := strings.TrimSpace(d.def.Name); given != "" && given != k.Value {
			d.warn(d.lineOf(fName), fName, fmt.Sprintf("the key %s names this agent; its name %s is ignored", quote(k.Value), quote(given)))
		}
		d.def.Name = k.Value
		d.lines[fName] = k.Line
	}
	return out
}
