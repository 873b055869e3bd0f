// Package pathrules holds the rules about paths that the virtual
// filesystem, its mount, the bash tool and the write-back share, so that
// they live in one place: how long a path may be, which names may hold a
// secret, which folders are never written, which files configure what
// runs next, and which are the agents' configuration rather than
// workspace. (What a text file is lives in package textfile.)
//
// A rule is a list of names — globs of one or more path segments, '*'
// and '?' within a segment — matched case-insensitively (a
// case-insensitive file system, the common one on macOS and Windows,
// takes .GIT for .git) against any run of whole segments of a relative,
// slash-separated path: ".ssh" matches ".ssh", "home/.ssh" and
// "home/.ssh/id_rsa"; ".github/workflows" matches
// "a/.github/workflows/ci.yml".
package pathrules

import (
	"path"
	"slices"
	"strings"
)

// Limits on a path of a session's files, relative and slash-separated:
// the VFS refuses a longer one, and the bash tool does not hand back a
// file that has one.
const (
	// MaxSegments is the most segments a path may have.
	MaxSegments = 16
	// MaxSegmentLength is the most bytes a segment may have.
	MaxSegmentLength = 80
)

// secrets are the names of files and directories that usually hold
// credentials — keys, tokens, passwords, shell histories. The list is
// deliberately broad: a model that cannot read a key cannot leak it.
var secrets = []string{
	// environment files
	".env", ".env.*", "*.env",
	// SSH, GnuPG and TLS keys and certificates' private halves
	".ssh", ".gnupg", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk", "*.asc",
	// clients' credentials
	".aws", ".azure", ".gcloud", ".kube", "kubeconfig", ".docker", ".dockercfg", ".config/gcloud",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".git-credentials",
	".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".terraformrc",
	".pgpass", ".my.cnf", ".vault-token", ".s3cfg", ".boto",
	"credentials", "credentials.json", "service-account*.json", "*firebase-adminsdk*.json", "gha-creds-*.json",
	"*.tfstate", "*.tfstate.*", "*.tfvars", ".htpasswd",
	"secrets.yml", "secrets.yaml", "secrets.json", "*.secret", "*.secrets",
	// shell histories, which hold the tokens typed on command lines
	".bash_history", ".zsh_history",
	// wallets
	"wallet.dat",
}

// versionControl are version control's folders.
var versionControl = []string{".git"}

// offshootOwn is offshoot's own folder: its config.json (which may hold
// an API key), session store, transcripts and agent definitions.
var offshootOwn = []string{".offshoot"}

// agentConfiguration are the folders of the agents' own configuration
// (agent definitions, settings with hooks, offshoot's own folder):
// configuration, not workspace.
var agentConfiguration = append([]string{".claude"}, offshootOwn...)

// runsNext are the files that configure what runs next, on this machine
// or in CI: CI workflows, direnv's .envrc (run on entering the
// directory), coding agents' settings, hooks and MCP servers, editors'
// tasks and settings, and git hook managers' hooks and configuration.
var runsNext = []string{
	".github/workflows", ".gitlab-ci.yml", ".circleci", "Jenkinsfile",
	".envrc",
	".claude", ".mcp.json",
	".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json",
	".husky", ".githooks", ".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml",
}

// A rule is a list of names, compiled, lower case: the names of one
// segment without a wildcard in a set (most of them), the others as their
// segments.
type rule struct {
	literal map[string]bool
	globs   [][]glob
}

// A glob is one segment of a name, with the text it must start and end
// with (before its first wildcard, after its last): a cheap test that
// spares most segments path.Match.
type glob struct{ pattern, prefix, suffix string }

func newGlob(pattern string) glob {
	g := glob{pattern: pattern}
	if i := strings.IndexAny(pattern, "*?[\\"); i >= 0 {
		g.prefix = pattern[:i]
		g.suffix = pattern[strings.LastIndexAny(pattern, "*?]\\")+1:]
	} else {
		g.prefix = pattern
	}
	return g
}

func (g glob) match(seg string) bool {
	if !strings.HasPrefix(seg, g.prefix) || !strings.HasSuffix(seg, g.suffix) {
		return false
	}
	ok, _ := path.Match(g.pattern, seg)
	return ok
}

func compile(names ...[]string) rule {
	r := rule{literal: map[string]bool{}}
	for _, list := range names {
		for _, n := range list {
			n = strings.ToLower(n)
			if !strings.ContainsAny(n, "/*?[\\") {
				r.literal[n] = true
				continue
			}
			var segs []glob
			for seg := range strings.SplitSeq(n, "/") {
				segs = append(segs, newGlob(seg))
			}
			r.globs = append(r.globs, segs)
		}
	}
	return r
}

var (
	secretRule         = compile(secrets)
	versionControlRule = compile(versionControl)
	agentConfigRule    = compile(agentConfiguration)
	neverWrittenRule   = compile(versionControl, offshootOwn, secrets)
	runsNextRule       = compile(runsNext)
)

// matches reports whether some run of whole segments of rel matches one
// of the rule's names.
func (r rule) matches(rel string) bool {
	segs := strings.Split(strings.ToLower(rel), "/")
	for _, seg := range segs {
		if r.literal[seg] {
			return true
		}
	}
	for _, name := range r.globs {
		for start := 0; start+len(name) <= len(segs); start++ {
			if matchRun(name, segs[start:start+len(name)]) {
				return true
			}
		}
	}
	return false
}

func matchRun(name []glob, segs []string) bool {
	for i, g := range name {
		if !g.match(segs[i]) {
			return false
		}
	}
	return true
}

// Secrets returns the names of files and directories that usually hold
// credentials (a copy: changing it changes no rule).
func Secrets() []string { return slices.Clone(secrets) }

// Secret reports whether the relative path rel, or a directory on the
// way to it, has a name of Secrets.
func Secret(rel string) bool { return secretRule.matches(rel) }

// VersionControl reports whether rel is in, or is, a version control
// folder (.git).
func VersionControl(rel string) bool { return versionControlRule.matches(rel) }

// AgentConfiguration reports whether rel is in, or is, a folder of the
// agents' own configuration (.claude, .offshoot): configuration, not
// workspace.
func AgentConfiguration(rel string) bool { return agentConfigRule.matches(rel) }

// NeverWritten reports whether a write-back must never write rel: a
// version control folder, offshoot's own folder (.offshoot) or a name
// that may hold a secret.
func NeverWritten(rel string) bool { return neverWrittenRule.matches(rel) }

// RunsNext reports whether rel configures what runs next — a CI
// workflow, .envrc, a coding agent's settings or MCP servers, an
// editor's tasks, a git hook — so that a write-back writes it only when
// the user names it.
func RunsNext(rel string) bool { return runsNextRule.matches(rel) }
