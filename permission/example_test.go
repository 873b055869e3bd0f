package permission_test

import (
	"context"
	"encoding/json"
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

// A policy from settings and a mode, with a CanUseTool that stands for
// the user: what it decides for four calls, and why.
func ExamplePolicy() {
	s, _, _ := permission.ParseSettings([]byte(`{"permissions": {
		"allow": ["Bash(go test:*)"],
		"deny": ["Bash(rm:*)"],
		"ask": ["Bash(git push:*)"]
	}}`))
	p := &permission.Policy{Settings: s, Mode: permission.AcceptEdits,
		CanUseTool: func(_ context.Context, r permission.Request) (permission.Decision, error) {
			return permission.Decision{Reason: "the user said no"}, nil
		}}
	for _, cmd := range []string{"go test ./...", "mkdir -p out && mv a out/", "go test ./... && rm -rf /", "git push origin main"} {
		d := p.Decide(context.Background(), permission.Request{Tool: "bash", Input: json.RawMessage(fmt.Sprintf(`{"command": %q}`, cmd))})
		fmt.Printf("%-28s %-5v %s\n", cmd, d.Allow, d.Reason)
	}
	// Output:
	// go test ./...                true  an allow rule
	// mkdir -p out && mv a out/    true  acceptEdits mode
	// go test ./... && rm -rf /    false the deny rule Bash(rm:*) of the settings
	// git push origin main         false the user said no
}
