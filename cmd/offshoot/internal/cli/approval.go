package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// approvalsKey and settingsApprovalsKey are the top-level keys of the
// user's configuration file (UserConfigFile) that record which projects'
// MCP servers, and which projects' settings files, the user approved: the
// project's directory → the hash of what was approved.
const (
	approvalsKey         = "approved_project_mcp_servers"
	settingsApprovalsKey = "approved_project_settings"
)

// maxUserConfigBytes bounds what is read of the user's configuration file
// to record an approval in it.
const maxUserConfigBytes = 1 << 20

// A project's MCP servers are commands that run on the user's machine (or
// URLs that get its requests), written by whoever wrote the project: one
// cloned a minute ago included. So, as Claude Code does, offshoot starts
// them only once the user approved them for that project, and asks again
// when they change. The user's own servers (~/.offshoot/config.json) need
// no approval.

// ConfiguredServers returns every configured MCP server, the user's and
// the project's (see Servers), approved or not, for naming their tools;
// approved, whether the project's servers (its files' and its agents' own)
// are approved, or there are none; and unapproved, the names of those the
// user has not approved, which a command that does not ask must not
// start. It never asks and records nothing. Files that cannot be read are
// warnings.
func (e *Env) ConfiguredServers() (servers map[string]mcp.ServerConfig, approved bool, unapproved []string) {
	servers, project, asked := e.projectServers()
	approved = true
	if len(asked) > 0 {
		approved = false
		if hash, err := serversHash(asked); err == nil {
			approved, _ = e.approved(approvalsKey, hash)
		}
		if !approved {
			unapproved = ServerNames(asked)
		}
	}
	maps.Copy(servers, project)
	return servers, approved, unapproved
}

// Servers returns the MCP servers a command may start: the user's
// (~/.offshoot/config.json) and, once approved, the project's (.mcp.json
// and .offshoot/config.json, whose entries win); and agentServers, whether
// the project's agents may start the servers their files configure inline
// (offshoot.Options.ProjectAgentServers), which are approved with the
// project's. A project's servers are approved when the user's
// configuration records them (unchanged) for this project; else approve
// (--approve-mcp) approves and records them; else, when Ask is set (chat
// on a terminal), the user is asked; else they are refused with a usage
// error that says how to approve them. Files or entries that cannot be
// read are left out with a warning.
func (e *Env) Servers(approve bool) (servers map[string]mcp.ServerConfig, agentServers bool, err error) {
	servers, project, asked := e.projectServers()
	if len(asked) == 0 {
		return servers, true, nil
	}
	hash, err := serversHash(asked)
	if err != nil {
		return nil, false, Failf("cannot fingerprint the project's MCP servers: %v", err)
	}
	ok, err := e.approved(approvalsKey, hash)
	if err != nil {
		e.Warn("%v", err)
	}
	switch {
	case ok:
	case approve || (e.Ask != nil && e.Ask(approvalQuestion(asked))):
		if err := e.recordApproval(approvalsKey, hash); err != nil {
			e.Warn("the project's MCP servers are approved for this run, but the approval could not be recorded: %v", err)
		}
	case e.Ask != nil:
		e.Warn("the project's MCP servers (%s) are not started: they were not approved", Printable(strings.Join(ServerNames(asked), ", ")))
		return servers, false, nil
	default:
		where := ".mcp.json and " + modelconfig.Path
		if len(asked) > len(project) {
			where = ".mcp.json, " + modelconfig.Path + " and the project's agent files"
		}
		return nil, false, Usagef("this project configures MCP servers (%s) that offshoot has not been allowed to start: "+
			"they run commands on this machine, and anyone may have written them. Read them in %s, then approve them for this project with --approve-mcp "+
			"(recorded in %s; a change to them asks again), or start 'offshoot chat', which asks",
			describeServers(asked), where, e.Show(e.UserConfigFile()))
	}
	maps.Copy(servers, project)
	return servers, true, nil
}

// projectServers reads the user's servers and the project's (see
// loadServers), and asked: the project's together with those its agents
// configure inline, which are approved together.
func (e *Env) projectServers() (user, project, asked map[string]mcp.ServerConfig) {
	user, project = e.loadServers()
	asked = maps.Clone(project)
	if asked == nil {
		asked = map[string]mcp.ServerConfig{}
	}
	maps.Copy(asked, e.projectAgentServers())
	return user, project, asked
}

// projectAgentServers returns the MCP servers the project's agent files
// configure inline, keyed "SERVER (agent NAME)": commands that run on this
// machine as the project's .mcp.json's do, approved with them. A server
// that cannot be read is left out (the agent's start says why).
func (e *Env) projectAgentServers() map[string]mcp.ServerConfig {
	out := map[string]mcp.ServerConfig{}
	if e.ProjectDir == "" || e.HomeDir != "" && filepath.Clean(e.HomeDir) == filepath.Clean(e.ProjectDir) {
		return out // the user's own directory: its files are the user's
	}
	for _, d := range agents.Load(agents.Options{ProjectDir: e.ProjectDir, NoBuiltins: true}).All() {
		if d.Source != agents.Project {
			continue
		}
		for _, s := range d.MCPServers {
			if s.Config == nil {
				continue
			}
			if cfg, err := mcp.ParseServer(s.Name, s.Config); err == nil {
				out[fmt.Sprintf("%s (agent %s)", s.Name, d.Name)] = cfg
			}
		}
	}
	return out
}

// loadServers reads the user's servers and the project's.
func (e *Env) loadServers() (user, project map[string]mcp.ServerConfig) {
	user = map[string]mcp.ServerConfig{}
	if e.HomeDir != "" {
		home, err := mcp.LoadFile(e.UserConfigFile())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.Warn("%v", err)
		}
		maps.Copy(user, home)
	}
	project, err := mcp.LoadProject(e.ProjectDir)
	if err != nil {
		e.Warn("%v", err)
	}
	if e.HomeDir != "" && filepath.Clean(e.HomeDir) == filepath.Clean(e.ProjectDir) {
		maps.Copy(user, project) // the user's own directory: its files are the user's
		project = nil
	}
	return user, project
}

// serversHash fingerprints a project's servers as they would start: a
// change of a command, an argument, a variable or a URL changes it.
func serversHash(servers map[string]mcp.ServerConfig) (string, error) {
	data, err := json.Marshal(servers) // map keys sorted
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// describeServers names each server with what it runs or reaches, as its
// file writes it: a ${VAR} reference is shown, never its value (a key, on
// the terminal or in a CI log).
func describeServers(servers map[string]mcp.ServerConfig) string {
	var parts []string
	for _, name := range ServerNames(servers) {
		what := servers[name].Describe()
		parts = append(parts, fmt.Sprintf("%s: %s", Printable(name), Printable(truncateRunes(what, 120))))
	}
	return strings.Join(parts, "; ")
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// approvalQuestion is what chat asks.
func approvalQuestion(servers map[string]mcp.ServerConfig) string {
	return fmt.Sprintf("This project configures MCP servers, which run on this machine: %s. Start them, now and in later runs while they stay unchanged?", describeServers(servers))
}

// approved reports whether the user's configuration records hash for the
// project under key.
func (e *Env) approved(key, hash string) (bool, error) {
	file, err := e.readUserConfig()
	if err != nil {
		return false, err
	}
	var approvals map[string]string
	if raw, ok := file[key]; ok {
		if err := json.Unmarshal(raw, &approvals); err != nil {
			return false, fmt.Errorf("%s: %q is not an object of directories and hashes: %v; remove it to be asked again", e.Show(e.UserConfigFile()), key, err)
		}
	}
	return approvals[e.ProjectDir] == hash, nil
}

// recordApproval records hash for the project under key in the user's
// configuration, keeping everything else in the file.
func (e *Env) recordApproval(key, hash string) error {
	return e.updateProjects(key, func(raw json.RawMessage) (any, error) {
		approvals := map[string]string{}
		_ = json.Unmarshal(raw, &approvals) // a broken record is replaced
		approvals[e.ProjectDir] = hash
		return approvals, nil
	})
}

// updateProjects replaces the value of key in the user's configuration —
// an object by project directory — by what update makes of it (nil when
// absent), keeping everything else in the file; the file is replaced
// atomically and readable by the user alone.
func (e *Env) updateProjects(key string, update func(raw json.RawMessage) (any, error)) error {
	path := e.UserConfigFile()
	if path == "" {
		return errors.New("there is no home directory to record it in")
	}
	file, err := e.readUserConfig()
	if err != nil {
		return err
	}
	v, err := update(file[key])
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	file[key] = raw
	data, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readUserConfig reads the user's configuration file as its top-level
// keys; a missing file is empty.
func (e *Env) readUserConfig() (map[string]json.RawMessage, error) {
	path := e.UserConfigFile()
	file := map[string]json.RawMessage{}
	if path == "" {
		return file, nil
	}
	data, err := regfile.Read(path, maxUserConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return file, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %v", e.Show(path), err)
	}
	if file == nil {
		file = map[string]json.RawMessage{}
	}
	return file, nil
}

// AskOnTerminal returns a question asker for Env.Ask that asks on the
// terminal of in and out, or nil when they are not both terminals: a
// pipe never answers yes. It reads the answer a byte at a time, so that
// nothing after the answer's line is taken from in.
func AskOnTerminal(in io.Reader, out io.Writer) func(string) bool {
	answer := answerOnTerminal(in, out)
	if answer == nil {
		return nil
	}
	return func(question string) bool {
		return slices.Contains([]string{"y", "yes"}, answer(question+" [y/N]"))
	}
}

// answerOnTerminal returns what asks a question on the terminal of in and
// out and returns the answer, trimmed and lower-cased; nil when they are
// not both terminals. It reads the answer as AskOnTerminal does.
func answerOnTerminal(in io.Reader, out io.Writer) func(string) string {
	fin, ok1 := in.(*os.File)
	fout, ok2 := out.(*os.File)
	if !ok1 || !ok2 || !isCharDevice(fin) || !isCharDevice(fout) {
		return nil
	}
	return func(question string) string {
		fmt.Fprintf(out, "%s ", question)
		var answer []byte
		b := make([]byte, 1)
		for len(answer) < 64 {
			n, err := fin.Read(b)
			if n == 0 || err != nil || b[0] == '\n' {
				break
			}
			answer = append(answer, b[0])
		}
		return strings.ToLower(strings.TrimSpace(string(answer)))
	}
}

func isCharDevice(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
