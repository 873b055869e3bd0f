package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerConfig says how to reach one MCP server: a command started as a
// process that speaks MCP on its standard input and output, or a URL. It
// has the shape of one entry of "mcpServers" in Claude Code's .mcp.json,
// whose keys it reads and writes; the server's name is the entry's key and
// is given alongside.
//
// ParseServer, LoadFile and LoadProject replace ${VAR} references; a
// ServerConfig built in Go is used as it is. Describe, and every message
// about the server, shows the references as written, never their values. Treat a ServerConfig as a
// value: do not change its slices and maps after handing it to a Manager.
type ServerConfig struct {
	// Type is "stdio" (a command), "http" (streamable HTTP) or "sse" (the
	// older HTTP+SSE transport). Empty means "stdio" when Command is set and
	// "http" when URL is set. ParseServer also accepts "streamable-http"
	// and "streamableHttp" for "http", as other clients write them.
	Type string `json:"type,omitempty"`
	// Command, Args and Env start a stdio server. The process gets this
	// process's environment plus Env.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Dir is the working directory of a stdio server; empty means this
	// process's. LoadProject sets it to the project directory.
	Dir string `json:"cwd,omitempty"`
	// URL and Headers reach an HTTP server; Headers go on every request.
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Transport, when set, is used instead of Command or URL: an
	// in-process server (see the SDK's NewInMemoryTransports) or any other
	// transport of the SDK. Go only.
	Transport sdk.Transport `json:"-"`
	// Source is the file the configuration came from, for messages; empty
	// for one given in Go.
	Source string `json:"-"`

	// written is what the file wrote, when ${VAR} references were
	// replaced: for showing the server without the values (see Describe).
	written *written
}

// rawServer is one "mcpServers" entry as written.
type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Dir     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// ParseServer reads the configuration of the server called name from one
// JSON object in Claude Code's format, such as
//
//	{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
//	{"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}
//
// ${VAR} and ${VAR:-default} in command, args, env values, cwd, url and
// header values are replaced by environment variables; a ${VAR} that is not
// set and has no default is an error. Keys the format does not know (such
// as "description" or "timeout") are ignored. Errors name the
// server and the field.
//
// The agents package uses it for a server given inline in an agent
// definition; LoadFile and LoadProject use it for every entry.
func ParseServer(name string, data []byte) (ServerConfig, error) {
	cfg, err := parseServer(name, data)
	if err != nil {
		return ServerConfig{}, &configError{Server: name, Err: err}
	}
	return cfg, nil
}

func parseServer(name string, data []byte) (ServerConfig, error) {
	if strings.TrimSpace(name) == "" {
		return ServerConfig{}, errors.New("a server needs a name: the key of its entry in \"mcpServers\"")
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return ServerConfig{}, errors.New(`the configuration must be a JSON object such as {"command": "...", "args": [...]} or {"type": "http", "url": "..."}`)
	}
	var raw rawServer
	if err := json.Unmarshal(data, &raw); err != nil {
		return ServerConfig{}, describeJSONError(err)
	}
	cfg := ServerConfig{
		Type: raw.Type, Command: raw.Command, Args: slices.Clone(raw.Args), Env: raw.Env,
		Dir: raw.Dir, URL: raw.URL, Headers: raw.Headers,
	}
	var refs []reference
	lookup := func(name string) (string, bool) {
		v, ok := os.LookupEnv(name)
		if ok {
			refs = append(refs, reference{value: v, ref: "${" + name + "}"})
		}
		return v, ok
	}
	if err := cfg.expand(lookup); err != nil {
		return ServerConfig{}, err
	}
	cfg.recordWritten(raw, refs)
	return cfg.check()
}

// describeJSONError words a decoding error of one server entry.
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := map[string]string{
			"type": "a string", "command": "a string", "cwd": "a string", "url": "a string",
			"args": "a list of strings", "env": "an object of strings", "headers": "an object of strings",
		}
		field, _, _ := strings.Cut(te.Field, ".")
		w, known := want[field]
		switch {
		case known && te.Type != nil && te.Type.Kind() == reflect.String && (field == "args" || field == "env" || field == "headers"):
			return fmt.Errorf("%s must be %s, and one of its values is a JSON %s; quote it", field, w, te.Value)
		case known:
			return fmt.Errorf("%s must be %s, not a JSON %s", field, w, te.Value)
		}
		return fmt.Errorf("%s: a JSON %s is not accepted here", te.Field, te.Value)
	}
	return fmt.Errorf("the configuration is not valid JSON: %v", err)
}

// expand replaces environment references in every field Claude Code
// expands, in place.
func (c *ServerConfig) expand(lookup func(string) (string, bool)) error {
	one := func(field string, s *string) error {
		v, err := expand(*s, lookup)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		*s = v
		return nil
	}
	if err := one("command", &c.Command); err != nil {
		return err
	}
	for i := range c.Args {
		if err := one(fmt.Sprintf("args[%d]", i), &c.Args[i]); err != nil {
			return err
		}
	}
	if err := one("cwd", &c.Dir); err != nil {
		return err
	}
	if err := one("url", &c.URL); err != nil {
		return err
	}
	for _, m := range []struct {
		field string
		vals  map[string]string
	}{{"env", c.Env}, {"headers", c.Headers}} {
		for _, k := range slices.Sorted(maps.Keys(m.vals)) {
			v := m.vals[k]
			if err := one(m.field+"."+k, &v); err != nil {
				return err
			}
			m.vals[k] = v
		}
	}
	return nil
}

// check validates c and returns it with its Type made explicit.
func (c ServerConfig) check() (ServerConfig, error) {
	if c.Transport != nil {
		return c, nil
	}
	switch c.Type {
	case "":
		switch {
		case c.Command != "" && c.URL != "":
			return c, errors.New(`both command and url are set; set "type" to "stdio" to start the command or to "http" to use the url`)
		case c.URL != "":
			c.Type = "http"
		default:
			c.Type = "stdio"
		}
	case "streamable-http", "streamableHttp":
		c.Type = "http"
	case "stdio", "http", "sse":
	default:
		return c, fmt.Errorf(`type %q is not supported; use "stdio" (a command), "http" (streamable HTTP) or "sse"`, c.Type)
	}
	if c.Type == "stdio" {
		if strings.TrimSpace(c.Command) == "" {
			return c, errors.New(`no command to start; give a "command" (and "args"), or a "url" for a server reached over HTTP`)
		}
		return c, nil
	}
	u, err := url.Parse(c.URL)
	switch {
	case c.URL == "":
		return c, fmt.Errorf(`type %q needs a "url", such as "https://mcp.example.com/mcp"`, c.Type)
	case err != nil:
		return c, fmt.Errorf("url %q is not a valid URL: %v", c.shownURL(), c.hideError(err))
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return c, fmt.Errorf("url %q must be an absolute http:// or https:// URL", c.shownURL())
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") {
			return c, fmt.Errorf("header name %q is not valid", k)
		}
		if strings.ContainsAny(c.Headers[k], "\r\n") {
			return c, fmt.Errorf("header %s: a value may not contain line breaks", k)
		}
	}
	return c, nil
}
