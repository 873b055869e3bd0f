package offshoot

import (
	"github.com/offshoot-dev/offshoot/prompt"
)

// dispatchable is what the main agent reads of the prompts
// dispatch_subagent can run: the registry's enabled prompts when its
// conversation starts (its system message is carried on after that).
type dispatchable struct {
	Prompts []dispatchName
}

// dispatchName is one prompt dispatch_subagent can run.
type dispatchName struct{ NS, Key string }

// dispatchSection lists the prompts, after the dispatch_subagent section;
// without Options.DispatchSubagent, or with no prompt to run, it is left out.
var dispatchSection = prompt.Markdown[dispatchable]("Prompts To Dispatch", `
	dispatch_subagent runs one of these prompts; give its prompt_ns and prompt_key:
	{{- range .Prompts }}
	- prompt_ns "{{ .NS }}", prompt_key "{{ .Key }}"
	{{- end }}`, prompt.WithEnabled(func(d dispatchable) bool { return len(d.Prompts) > 0 }))

// dispatchable returns the prompts dispatch_subagent can run now.
func (c *Client) dispatchable() dispatchable {
	var d dispatchable
	for p := range c.dispatch.All() {
		if c.dispatch.Enabled(p.NS(), p.Key()) {
			d.Prompts = append(d.Prompts, dispatchName{NS: p.NS(), Key: p.Key()})
		}
	}
	return d
}

// queryParams returns the params the main agent's prompt is rendered with
// for a query.
func (c *Client) queryParams() []any {
	if c.dispatch == nil {
		return c.params
	}
	return append(append(make([]any, 0, len(c.params)+1), c.params...), c.dispatchable())
}
