package hooks_test

import (
	"context"
	"fmt"
	"os"

	"github.com/offshoot-dev/offshoot/hooks"
)

// Read a settings file's hooks and run them as the client would: a
// PreToolUse hook that refuses rm with exit 2, and a UserPromptSubmit
// hook whose output is context for the model.
func ExampleParseSettings() {
	h, warnings, err := hooks.ParseSettings([]byte(`{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
			"command": "grep -q '\"command\":\"rm ' && { echo 'rm is not allowed here' >&2; exit 2; }; exit 0"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'The release is on Friday.'"}]}]
	}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(h.List), "hooks,", len(warnings), "warnings")
	h.Dir = os.TempDir() // the project's directory

	ctx := context.Background()
	// offshoot's bash tool is Bash to the hooks.
	out, _ := h.Run(ctx, hooks.Input{Event: hooks.PreToolUse, ToolName: "bash", ToolInput: []byte(`{"command":"rm -rf build"}`)})
	fmt.Println(out.PermissionDecision+":", out.PermissionDecisionReason)
	out, _ = h.Run(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: "When is the release?"})
	fmt.Println("context:", out.AdditionalContext)
	// Output:
	// 2 hooks, 0 warnings
	// deny: rm is not allowed here
	// context: The release is on Friday.
}
