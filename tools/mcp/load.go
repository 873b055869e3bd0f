package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// Where a project keeps its server configurations, relative to its root.
const (
	// projectFile is Claude Code's project file, shared with it.
	projectFile = ".mcp.json"
	// configFile is offshoot's own configuration; its "mcpServers" win
	// over projectFile's.
	configFile = ".offshoot/config.json"
)

// maxConfigBytes is the most LoadFile reads of a configuration file; a
// larger one is an error, as is a FIFO, a device or a link to one.
const maxConfigBytes = 1 << 20

// LoadFile reads the "mcpServers" object of a JSON file: a .mcp.json, or
// an offshoot config.json (whose other keys are ignored). A file without
// "mcpServers" has no servers. Each server's Source is path.
//
// It returns every server that could be read, keyed by name, and an error
// joining one for each entry that could not be read (naming the file and
// the server), so one mistake does not hide the other servers. A file that
// does not exist is an error that matches fs.ErrNotExist.
func LoadFile(path string) (map[string]ServerConfig, error) {
	servers, _, err := loadFile(path)
	return servers, err
}

// loadFile is LoadFile that also returns the names of the entries it could
// not read.
func loadFile(path string) (map[string]ServerConfig, []string, error) {
	data, err := regfile.Read(path, maxConfigBytes)
	if err != nil {
		return nil, nil, &configError{File: path, Err: err}
	}
	var file struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, &configError{File: path, Err: fmt.Errorf("not a valid JSON object: %v", err)}
	}
	servers := map[string]ServerConfig{}
	raw := bytes.TrimSpace(file.MCPServers)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return servers, nil, nil
	}
	var entries map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &entries) != nil {
		return nil, nil, &configError{File: path, Err: errors.New(`"mcpServers" must be an object of named servers, such as {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`)}
	}
	var errs []error
	var broken []string
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		cfg, err := parseServer(name, entries[name])
		if err != nil {
			errs = append(errs, &configError{File: path, Server: name, Err: err})
			broken = append(broken, name)
			continue
		}
		cfg.Source = path
		servers[name] = cfg
	}
	return servers, broken, errors.Join(errs...)
}

// LoadProject reads the servers of the project rooted at dir: those of
// projectFile (.mcp.json, Claude Code's format, so a project's existing
// file works unchanged) and those of configFile (.offshoot/config.json).
// When both files name a server, configFile's entry wins, whole: it is
// offshoot's own configuration, so it can replace a server of the shared
// file for offshoot alone. A missing file has no servers.
//
// Stdio servers run in dir unless their entry gives a "cwd" (relative to
// dir). Like LoadFile it returns what it could read and an error joining
// every problem; an entry of configFile that cannot be read also hides
// projectFile's entry of that name, so a mistake is never papered over by
// the other file.
func LoadProject(dir string) (map[string]ServerConfig, error) {
	servers := map[string]ServerConfig{}
	var errs []error
	for _, rel := range []string{projectFile, configFile} {
		found, broken, err := loadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) && found == nil {
			continue
		}
		if err != nil {
			errs = append(errs, err)
		}
		for _, name := range broken {
			delete(servers, name)
		}
		for name, cfg := range found {
			if cfg.Type == "stdio" {
				switch {
				case cfg.Dir == "":
					cfg.Dir = dir
				case !filepath.IsAbs(cfg.Dir):
					cfg.Dir = filepath.Join(dir, cfg.Dir)
				}
			}
			servers[name] = cfg
		}
	}
	return servers, errors.Join(errs...)
}
