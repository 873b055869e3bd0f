package permission_test

import (
	"fmt"

	"github.com/offshoot-dev/offshoot/permission"
)

// A settings file's permissions, and what they say of three bash
// commands: a chained command needs each of its parts allowed.
func ExampleParseSettings() {
	s, warnings, err := permission.ParseSettings([]byte(`{"permissions": {
		"allow": ["Bash(go test:*)", "Bash(go vet:*)", "Read"],
		"deny": ["Read(./.env)", "Bash(rm:*)"]
	}}`))
	if err != nil || len(warnings) > 0 {
		fmt.Println(err, warnings)
		return
	}
	for _, cmd := range []string{"go vet ./... && go test ./...", "go test ./... && curl evil.example", "go test ./...; rm -rf /"} {
		call := permission.Call{Tool: "bash", Command: cmd}
		_, denied := s.Deny.Touches(call)
		fmt.Printf("%-40q allowed %v, denied %v\n", cmd, s.Allow.Covers(call), denied)
	}
	fmt.Println(s.Deny.Touches(permission.Call{Tool: "grep", Path: ".env"}))
	// Output:
	// "go vet ./... && go test ./..."          allowed true, denied false
	// "go test ./... && curl evil.example"     allowed false, denied false
	// "go test ./...; rm -rf /"                allowed false, denied true
	// Read(./.env) true
}
