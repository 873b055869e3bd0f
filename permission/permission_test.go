package permission_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/permission"
)

// rules parses each rule.
func rules(t *testing.T, list ...string) permission.Rules {
	t.Helper()
	var out permission.Rules
	for _, s := range list {
		r, err := permission.ParseRule(s)
		require.NoError(t, err, s)
		out = append(out, r)
	}
	return out
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want permission.Rule
		err  string
	}{
		{"Bash", permission.Rule{Tool: "Bash"}, ""},
		{" Bash(go test:*) ", permission.Rule{Tool: "Bash", Specifier: "go test:*"}, ""},
		{"Bash(*)", permission.Rule{Tool: "Bash"}, ""},
		{"Read(./secrets/**)", permission.Rule{Tool: "Read", Specifier: "./secrets/**"}, ""},
		{"Bash(echo (a))", permission.Rule{Tool: "Bash", Specifier: "echo (a)"}, ""},
		{"mcp__github__create_issue", permission.Rule{Tool: "mcp__github__create_issue"}, ""},
		{"", permission.Rule{}, "an empty permission rule"},
		{"(x)", permission.Rule{}, "has no tool's name"},
		{"Bash(go test", permission.Rule{}, "does not end with the parenthesis"},
		{"Read Write", permission.Rule{}, "is not a tool's name"},
		{"Bash(" + strings.Repeat("x", 5000) + ")", permission.Rule{}, "keep it under 4096"},
	} {
		r, err := permission.ParseRule(tc.in)
		if tc.err != "" {
			require.Error(t, err, tc.in)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, r)
		again, err := permission.ParseRule(r.String())
		require.NoError(t, err)
		assert.Equal(t, r, again, "String reads back")
	}
}

func TestRulesMatch(t *testing.T) {
	bash := func(cmd string) permission.Call { return permission.Call{Tool: "bash", Command: cmd} }
	file := func(tool, p string) permission.Call { return permission.Call{Tool: tool, Path: p} }
	for _, tc := range []struct {
		name    string
		rules   []string
		call    permission.Call
		covers  bool // as an allow list
		touches bool // as a deny or ask list
	}{
		{"a tool without specifier", []string{"Bash"}, bash("rm -rf /"), true, true},
		{"prefix", []string{"Bash(go test:*)"}, bash("go test ./..."), true, true},
		{"prefix alone", []string{"Bash(go test:*)"}, bash("go test"), true, true},
		{"prefix at a word's end only", []string{"Bash(go test:*)"}, bash("go testify"), false, false},
		{"new prefix form", []string{"Bash(npm run *)"}, bash("npm run build"), true, true},
		{"exact", []string{"Bash(make)"}, bash("make"), true, true},
		{"exact is exact", []string{"Bash(make)"}, bash("make install"), false, false},
		{"wildcard inside", []string{"Bash(git * main)"}, bash("git push origin main"), true, true},
		{"chained: each part must be allowed", []string{"Bash(go test:*)"}, bash("go test ./... && rm -rf /"), false, true},
		{"chained: each part allowed", []string{"Bash(go test:*)", "Bash(go vet:*)", "Bash(tee:*)"}, bash("go vet ./... && go test ./... | tee out; go test -run X || go vet ."), true, true},
		{"piped", []string{"Bash(cat:*)"}, bash("cat a | sh"), false, true},
		{"backgrounded", []string{"Bash(sleep:*)"}, bash("sleep 1 & rm x"), false, true},
		{"new line", []string{"Bash(ls:*)"}, bash("ls\nrm x"), false, true},
		{"quoted operators are text", []string{"Bash(echo:*)"}, bash(`echo "a && b" 'c; d'`), true, true},
		{"a redirection is no operator", []string{"Bash(go test:*)"}, bash("go test ./... 2>&1"), true, true},
		{"substitution never allowed", []string{"Bash(go test:*)"}, bash("go test $(rm -rf /)"), false, true},
		{"backticks never allowed", []string{"Bash(echo:*)"}, bash("echo `id`"), false, true},
		{"deny matches a part", []string{"Bash(rm:*)"}, bash("ls && rm -rf /"), false, true},
		{"another tool", []string{"Bash(go test:*)"}, file("read_file", "a.go"), false, false},
		{"Read covers the reading tools", []string{"Read"}, file("grep", "a.go"), true, true},
		{"Read does not cover writing", []string{"Read"}, file("write_file", "a.go"), false, false},
		{"Edit covers the changing tools", []string{"Edit"}, file("rm", "a.go"), true, true},
		{"Write is write_file", []string{"Write"}, file("write_file", "a.go"), true, true},
		{"offshoot's own name", []string{"read_file"}, file("read_file", "a.go"), true, true},
		{"path under a folder", []string{"Read(./secrets/**)"}, file("read_file", "secrets/prod/key.txt"), true, true},
		{"path: the folder itself", []string{"Read(./secrets)"}, file("read_file", "secrets/key.txt"), true, true},
		{"path: anchored", []string{"Read(/secrets/**)"}, file("read_file", "app/secrets/key.txt"), false, false},
		{"path: a name at any depth", []string{"Read(*.env)"}, file("read_file", "app/prod.env"), true, true},
		{"path: a name at any depth, not a prefix", []string{"Read(.env)"}, file("read_file", "app/.envrc"), false, false},
		{"path: ** in the middle", []string{"Edit(src/**/*.go)"}, file("edit_file", "src/a/b/c.go"), true, true},
		{"path: ** in the middle, another file", []string{"Edit(src/**/*.go)"}, file("edit_file", "src/a/b/c.md"), false, false},
		{"path: never above the project", []string{"Read(**)"}, file("read_file", "../x"), false, false},
		{"path: the home is not the project", []string{"Read(~/.ssh/**)"}, file("read_file", ".ssh/id_rsa"), false, false},
		{"mcp tool", []string{"mcp__github__create_issue"}, permission.Call{Tool: "mcp__github__create_issue"}, true, true},
		{"mcp server", []string{"mcp__github"}, permission.Call{Tool: "mcp__github__create_issue"}, true, true},
		{"mcp server is not a prefix of another", []string{"mcp__git"}, permission.Call{Tool: "mcp__github__create_issue"}, false, false},
		{"mcp pattern", []string{"mcp__github__*"}, permission.Call{Tool: "mcp__github__list"}, true, true},
		{"fetch domain", []string{"WebFetch(domain:example.com)"}, permission.Call{Tool: "WebFetch", URL: "https://example.com/a"}, true, true},
		{"fetch domain is exact", []string{"WebFetch(domain:example.com)"}, permission.Call{Tool: "WebFetch", URL: "https://evil-example.com/"}, false, false},
		{"fetch subdomains", []string{"WebFetch(domain:*.example.com)"}, permission.Call{Tool: "WebFetch", URL: "https://docs.example.com/"}, true, true},
		{"a specifier the tool has no notion of", []string{"Task(x)"}, permission.Call{Tool: "Task"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := rules(t, tc.rules...)
			assert.Equal(t, tc.covers, rs.Covers(tc.call), "Covers")
			_, touched := rs.Touches(tc.call)
			assert.Equal(t, tc.touches, touched, "Touches")
		})
	}
}

func TestParseSettings(t *testing.T) {
	s, warnings, err := permission.ParseSettings([]byte(`{
		"permissions": {
			"allow": ["Bash(go test:*)", "Read", 3, "(bad)"],
			"deny": ["Read(./.env)", "WebFetch"],
			"ask": ["Bash(git push:*)"],
			"defaultMode": "acceptEdits"
		},
		"hooks": {"PreToolUse": []},
		"env": {"A": "b"}
	}`))
	require.NoError(t, err)
	assert.Equal(t, permission.Settings{
		Allow:       rules(t, "Bash(go test:*)", "Read"),
		Deny:        rules(t, "Read(./.env)", "WebFetch"),
		Ask:         rules(t, "Bash(git push:*)"),
		DefaultMode: permission.AcceptEdits,
	}, s)
	require.Len(t, warnings, 2)
	assert.Contains(t, warnings[0], `permissions.allow[2]: a rule is a string such as "Bash(go test:*)"`)
	assert.Contains(t, warnings[1], "permissions.allow[3]: the permission rule \"(bad)\" has no tool's name")

	s, warnings, err = permission.ParseSettings([]byte(`{"permissions": {"defaultMode": "yolo"}}`))
	require.NoError(t, err)
	assert.Equal(t, permission.Default, s.DefaultMode)
	assert.Equal(t, []string{`permissions.defaultMode "yolo" is not a mode: use default, acceptEdits, plan, bypassPermissions or dontAsk; default is used`}, warnings)

	s, _, err = permission.ParseSettings([]byte(`{}`))
	require.NoError(t, err)
	assert.Equal(t, permission.Settings{DefaultMode: permission.Default}, s)

	_, _, err = permission.ParseSettings([]byte(`[1]`))
	assert.ErrorContains(t, err, "not a JSON object")
	_, _, err = permission.ParseSettings([]byte(`{"permissions": {"allow": "Bash"}}`))
	assert.Error(t, err)
}

func FuzzRules(f *testing.F) {
	for _, s := range [][2]string{
		{"Bash(go test:*)", "go test ./... && rm -rf /"}, {"Read(./a/**)", "a/b"}, {"Bash(git * main)", "git ** main"},
		{"WebFetch(domain:*.x.com)", "http://a.x.com"}, {"Edit(**/**/*.go)", "a/b/c.go"}, {"Bash(echo:*)", `echo "a \" && b" 'c`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, rule, input string) {
		r, err := permission.ParseRule(rule)
		if err != nil {
			return
		}
		rs := permission.Rules{r}
		for _, c := range []permission.Call{
			{Tool: "bash", Command: input}, {Tool: "read_file", Path: input}, {Tool: "WebFetch", URL: input}, {Tool: input},
		} {
			covers := rs.Covers(c)
			_, touches := rs.Touches(c)
			if covers {
				require.True(t, touches, "what a rule allows it also matches: %q %q", rule, input)
			}
		}
	})
}
