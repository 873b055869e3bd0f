package permission_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/permission"
)

// Claude Code's WebFetch rules govern offshoot's web_fetch tool (package
// tools/webfetch), matched on its url argument's host.
func TestWebFetchTool(t *testing.T) {
	for _, tc := range []struct {
		rule, url string
		want      bool
	}{
		{"WebFetch", "https://anything.example/", true},
		{"WebFetch(domain:go.dev)", "https://go.dev/doc/", true},
		{"WebFetch(domain:go.dev)", "https://GO.DEV./doc/", true},
		{"WebFetch(domain:go.dev)", "https://go.dev.evil.example/", false},
		{"WebFetch(domain:*.go.dev)", "https://pkg.go.dev/net", true},
		{"WebFetch(domain:go.dev)", "", false},
		{"web_fetch", "https://go.dev/", true},
	} {
		c := permission.Call{Tool: "web_fetch", URL: tc.url}
		assert.Equal(t, tc.want, rules(t, tc.rule).Covers(c), "%s on %s", tc.rule, tc.url)
	}
}
