package pathrules_test

import (
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/pathrules"
)

// secretExamples holds, for every name of Secrets, a file name it
// matches: adding a name without an example fails the test.
var secretExamples = map[string]string{
	".env": ".env", ".env.*": ".env.production", "*.env": "prod.env",
	".ssh": ".ssh", ".gnupg": ".gnupg", "id_rsa*": "id_rsa.pub", "id_dsa*": "id_dsa", "id_ecdsa*": "id_ecdsa", "id_ed25519*": "id_ed25519",
	"*.pem": "server.pem", "*.key": "server.key", "*.p12": "cert.p12", "*.pfx": "cert.pfx", "*.jks": "store.jks",
	"*.keystore": "release.keystore", "*.ppk": "putty.ppk", "*.asc": "private.asc",
	".aws": ".aws", ".azure": ".azure", ".gcloud": ".gcloud", ".kube": ".kube", "kubeconfig": "kubeconfig",
	".docker": ".docker", ".dockercfg": ".dockercfg", ".config/gcloud": ".config/gcloud",
	".npmrc": ".npmrc", ".yarnrc": ".yarnrc", ".yarnrc.yml": ".yarnrc.yml", ".pypirc": ".pypirc", ".netrc": ".netrc",
	"_netrc": "_netrc", ".git-credentials": ".git-credentials", ".gem/credentials": ".gem/credentials",
	".cargo/credentials": ".cargo/credentials", ".cargo/credentials.toml": ".cargo/credentials.toml", ".terraformrc": ".terraformrc",
	".pgpass": ".pgpass", ".my.cnf": ".my.cnf", ".vault-token": ".vault-token", ".s3cfg": ".s3cfg", ".boto": ".boto",
	"credentials": "credentials", "credentials.json": "credentials.json", "service-account*.json": "service-account-ci.json",
	"*firebase-adminsdk*.json": "app-firebase-adminsdk-ab12c.json", "gha-creds-*.json": "gha-creds-3f2a.json",
	"*.tfstate": "terraform.tfstate", "*.tfstate.*": "terraform.tfstate.backup", "*.tfvars": "prod.tfvars", ".htpasswd": ".htpasswd",
	"secrets.yml": "secrets.yml", "secrets.yaml": "secrets.yaml", "secrets.json": "secrets.json", "*.secret": "db.secret", "*.secrets": "app.secrets",
	".bash_history": ".bash_history", ".zsh_history": ".zsh_history", "wallet.dat": "wallet.dat",
}

// Every name of Secrets is matched alone, at any depth, with a path below
// it, and in any case.
func TestSecrets(t *testing.T) {
	names := pathrules.Secrets()
	assert.ElementsMatch(t, names, slices.Collect(maps.Keys(secretExamples)), "every name has an example, and every example a name")
	for _, name := range names {
		ex := secretExamples[name]
		t.Run(name, func(t *testing.T) {
			for _, p := range []string{ex, "a/b/" + ex, ex + "/inside", strings.ToUpper(ex), "Sub/" + strings.ToUpper(ex[:1]) + ex[1:]} {
				assert.True(t, pathrules.Secret(p), p)
				assert.True(t, pathrules.NeverWritten(p), p)
			}
		})
	}
	slices.Sort(names)
	assert.Equal(t, len(names), len(slices.Compact(names)), "no name twice")
}

// Every name of every rule is a valid glob.
func TestNamesAreGlobs(t *testing.T) {
	for _, name := range pathrules.Secrets() {
		for seg := range strings.SplitSeq(name, "/") {
			_, err := path.Match(seg, "")
			require.NoError(t, err, name)
		}
	}
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		path                                        string
		secret, vcs, agents, neverWritten, runsNext bool
	}{
		{path: "README.md"},
		{path: "src/main.go"},
		{path: "environment.md"},
		{path: "docs/keys.md"},
		{path: "git/notes.md"},
		{path: ".gitignore"},
		{path: ".github/CODEOWNERS"},
		{path: ".vscode/extensions.json"},
		{path: "claude.md"},
		{path: ".git", vcs: true, neverWritten: true},
		{path: ".git/hooks/pre-commit", vcs: true, neverWritten: true},
		{path: "sub/.GIT/config", vcs: true, neverWritten: true},
		{path: ".offshoot/config.json", agents: true, neverWritten: true},
		{path: ".Offshoot/agents/x.md", agents: true, neverWritten: true},
		{path: ".claude/agents/x.md", agents: true, runsNext: true},
		{path: ".claude/settings.json", agents: true, runsNext: true},
		{path: ".github/workflows/ci.yml", runsNext: true},
		{path: "pkg/.github/workflows/ci.yml", runsNext: true},
		{path: ".GitHub/Workflows/x.yml", runsNext: true},
		{path: ".envrc", runsNext: true},
		{path: ".mcp.json", runsNext: true},
		{path: ".vscode/tasks.json", runsNext: true},
		{path: ".vscode/settings.json", runsNext: true},
		{path: ".vscode/launch.json", runsNext: true},
		{path: ".husky/pre-commit", runsNext: true},
		{path: ".githooks/pre-push", runsNext: true},
		{path: ".pre-commit-config.yaml", runsNext: true},
		{path: "lefthook.yml", runsNext: true},
		{path: ".gitlab-ci.yml", runsNext: true},
		{path: ".circleci/config.yml", runsNext: true},
		{path: "Jenkinsfile", runsNext: true},
		{path: "sub/.Env", secret: true, neverWritten: true},
		{path: "SERVER.PEM", secret: true, neverWritten: true},
		{path: ".claude/.env", secret: true, agents: true, neverWritten: true, runsNext: true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.secret, pathrules.Secret(tc.path), "Secret")
			assert.Equal(t, tc.vcs, pathrules.VersionControl(tc.path), "VersionControl")
			assert.Equal(t, tc.agents, pathrules.AgentConfiguration(tc.path), "AgentConfiguration")
			assert.Equal(t, tc.neverWritten, pathrules.NeverWritten(tc.path), "NeverWritten")
			assert.Equal(t, tc.runsNext, pathrules.RunsNext(tc.path), "RunsNext")
		})
	}
}

// Secrets returns a copy.
func TestSecretsIsACopy(t *testing.T) {
	s := pathrules.Secrets()
	s[0] = "README.md"
	assert.False(t, pathrules.Secret("README.md"))
}
