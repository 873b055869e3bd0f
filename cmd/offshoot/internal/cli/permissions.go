package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/permission"
	projectfiles "github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/runner"
)

// modes are the permission modes --permission-mode takes.
var modes = []permission.Mode{permission.Default, permission.AcceptEdits, permission.Plan, permission.BypassPermissions, permission.DontAsk}

// permissionModeUsage is --permission-mode's help.
const permissionModeUsage = "how tool calls no rule decides are treated: default (ask), acceptEdits (file changes allowed), plan (nothing that changes anything runs), bypassPermissions (all allowed but what a deny or ask rule names), dontAsk (all denied that no rule allows) (default: the settings' permissions.defaultMode, else default)"

// policy returns the permission policy of a command that runs a main
// agent: the settings files' rules (the project's allow rules and widening
// mode once the user approved them, see settingsApproved), the mode of
// --permission-mode or the settings, and the question asked at the
// terminal through answer (nil: none to ask) or, with none, granted: the
// tools the command line offers (--allow bash, the MCP servers the user
// configured or approved), which run as before unless an ask rule or a
// hook asks about the call; anything else asked about waits for the
// user's answer (runner.Wait: offshoot sessions answer ID yes) when the
// session is stored and the call is the main agent's, and is denied
// otherwise, standard error saying so.
func (e *Env) policy(f AgentFlags, answer func(string) string, granted func(tool string) bool) (*permission.Policy, error) {
	var mode permission.Mode
	if f.PermissionMode != "" {
		i := slices.IndexFunc(modes, func(m permission.Mode) bool { return strings.EqualFold(string(m), f.PermissionMode) })
		if i < 0 {
			return nil, Usagef("--permission-mode %s: give one of default, acceptEdits, plan, bypassPermissions, dontAsk", Printable(f.PermissionMode))
		}
		mode = modes[i]
	}
	e.Settings = projectfiles.LoadSettings(projectfiles.Options{Dir: e.ProjectDir, HomeDir: e.HomeDir})
	e.SettingsTrusted = e.settingsApproved(e.Settings, f.ApproveSettings)
	settings := e.Settings.Permissions(e.SettingsTrusted)
	e.Remembered = e.rememberedRules()
	settings.Allow = append(settings.Allow, e.Remembered...)
	p := &permission.Policy{Settings: settings, Mode: mode}
	if answer != nil {
		p.CanUseTool = askAtTerminal(answer, e.bash != nil && e.bash.Confined(), func(rules permission.Rules) {
			if err := e.rememberRules(rules); err != nil {
				e.Warn("allowed for this run, but not remembered for the next ones: %v", err)
			}
		})
		return p, nil
	}
	stored, confined := e.Stored != nil, e.bash != nil && e.bash.Confined()
	p.CanUseTool = func(ctx context.Context, r permission.Request) (permission.Decision, error) {
		if r.AskedBy == "" && granted(r.Tool) {
			return permission.Decision{Allow: true, Reason: "the command line"}, nil
		}
		if a, ok := runner.AnswerOf(ctx); ok { // the answer to a question it waited on
			if yes(a) {
				return permission.Decision{Allow: true, Reason: "the user"}, nil
			}
			return permission.Decision{Reason: "the user did not allow it; ask them about it, or do the work another way"}, nil
		}
		if stored && r.AgentType == "" {
			// No one to ask now: the main agent's run waits for the
			// answer (offshoot sessions answer ID yes).
			return permission.Decision{}, runner.Wait(parkedQuestion(r, confined))
		}
		if r.AskedBy != "" {
			e.Warn("denied %s: %s asks about it, and there is no terminal to ask", Printable(r.Tool), Printable(r.AskedBy))
			return permission.Decision{Reason: r.AskedBy + " asks about it, and there is no one to ask: offshoot runs without a terminal"}, nil
		}
		e.Warn("denied %s: no rule allows it, and there is no terminal to ask; allow it with a rule in .claude/settings.json or --permission-mode", Printable(r.Tool))
		return permission.Decision{Reason: "no rule allows it, and there is no one to ask: offshoot runs without a terminal"}, nil
	}
	return p, nil
}

// settingsApproved reports whether the project's settings take full
// effect: there are none that widen anything, the user's configuration
// records their hash for this project, or the user approves them now
// (--approve-settings, or the question at a terminal, recorded). Not
// approved, the project's allow rules and widening mode are left out with
// a warning; its deny and ask rules hold all the same. The project's
// hooks are approved apart (see Hooks).
func (e *Env) settingsApproved(s *projectfiles.Settings, approve bool) bool {
	widens := len(s.Project.Allow) > 0 || s.Project.DefaultMode == permission.AcceptEdits || s.Project.DefaultMode == permission.BypassPermissions
	if s.Hash == "" || !widens {
		return true
	}
	ok, err := e.approved(settingsApprovalsKey, s.Hash)
	if err != nil {
		e.Warn("%v", err)
	}
	question := fmt.Sprintf("This project's settings allow tool calls to run without asking (%s). Apply them, now and in later runs while they stay unchanged?", describeWidening(s.Project))
	switch {
	case ok:
		return true
	case approve || (e.Ask != nil && e.Ask(question)):
		if err := e.recordApproval(settingsApprovalsKey, s.Hash); err != nil {
			e.Warn("the project's settings are approved for this run, but the approval could not be recorded: %v", err)
		}
		return true
	}
	e.Warn("the project's settings allow %s; not applied, as you have not approved them: read them, then approve them with --approve-settings (asked again when they change)", describeWidening(s.Project))
	return false
}

// describeWidening says what a project's settings allow.
func describeWidening(s permission.Settings) string {
	var parts []string
	for _, r := range s.Allow {
		parts = append(parts, r.String())
	}
	if s.DefaultMode == permission.AcceptEdits || s.DefaultMode == permission.BypassPermissions {
		parts = append(parts, "mode "+string(s.DefaultMode))
	}
	return Printable(truncateRunes(strings.Join(parts, ", "), 300))
}

// askAtTerminal returns the CanUseTool that asks the user with answer:
// yes (this call), always (calls like it, in this project: the rules the
// policy suggests, as Claude Code's "don't ask again" — Bash(go test:*)
// for "go test ./...", not every command — allowed for the rest of the
// session and given to remember for later runs), or no. Questions are
// asked one at a time.
func askAtTerminal(answer func(string) string, confined bool, remember func(permission.Rules)) func(context.Context, permission.Request) (permission.Decision, error) {
	var mu sync.Mutex
	var always permission.Rules
	return func(ctx context.Context, r permission.Request) (permission.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(always) > 0 && always.Covers(r.Call()) {
			return permission.Decision{Allow: true, Reason: "the user"}, nil
		}
		a := answer(toolQuestion(r, confined))
		if err := ctx.Err(); err != nil {
			return permission.Decision{}, err // stopped while the user was asked
		}
		switch a {
		case "a", "always":
			always = append(always, r.Suggestions...)
			remember(r.Suggestions)
			return permission.Decision{Allow: true, Reason: "the user"}, nil
		case "y", "yes":
			return permission.Decision{Allow: true, Reason: "the user"}, nil
		}
		return permission.Decision{Reason: "the user did not allow it; ask them about it, or do the work another way"}, nil
	}
}

// yes reports whether a person's answer allows a call.
func yes(answer string) bool {
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes", "a", "always":
		return true
	}
	return false
}

// parkedQuestion is the question a run waits on when there is no terminal
// to ask before a call runs: what the call is, answered later.
func parkedQuestion(r permission.Request, confined bool) string {
	return callShown(r, confined) + "\nAnswer yes to allow it, or no."
}

// toolQuestion is what the user is asked at the terminal before a call
// runs: the call, and the answers, "always" naming what it allows.
func toolQuestion(r permission.Request, confined bool) string {
	verb := "Allow it?"
	if r.Tool == "bash" {
		verb = "Run it?"
	}
	if len(r.Suggestions) == 0 {
		return callShown(r, confined) + "\n" + verb + " [y]es, [N]o:"
	}
	var rules []string
	for _, s := range r.Suggestions {
		rules = append(rules, s.String())
	}
	return fmt.Sprintf("%s\n%s [y]es, [N]o, [a]lways allow %s in this project:", callShown(r, confined), verb, Printable(truncateRunes(strings.Join(rules, ", "), maxShownCommand)))
}

// callShown says which agent wants to make the call r, and the call.
func callShown(r permission.Request, confined bool) string {
	who := "The agent"
	if r.AgentType != "" {
		who = "The " + Printable(r.AgentType) + " agent"
	}
	why := ""
	if r.AskedBy != "" {
		why = " (" + Printable(r.AskedBy) + " asks)"
	}
	if r.Tool == "bash" {
		return who + why + " " + strings.TrimPrefix(bashQuestion(gjson.GetBytes(r.Input, "command").String(), confined), "The agent ")
	}
	return fmt.Sprintf("%s%s wants to use %s with %s", who, why, Printable(r.Tool), Printable(truncateRunes(string(r.Input), maxShownCommand)))
}

// rememberedKey is the key of the user's configuration file that records
// the rules the user allowed for good at the terminal ([a]lways): the
// project's directory → the rules, as Claude Code writes them. They are
// kept in the user's own file, not in the project's settings, which
// whoever wrote the project controls (and whose approval a change would
// ask again).
const rememberedKey = "allowed_in_project"

// rememberedRules returns the rules the user allowed for good in this
// project; an entry that is not a rule is a warning and left out.
func (e *Env) rememberedRules() permission.Rules {
	file, err := e.readUserConfig()
	if err != nil {
		e.Warn("%v", err)
		return nil
	}
	var byProject map[string][]json.RawMessage
	if raw, ok := file[rememberedKey]; ok {
		if err := json.Unmarshal(raw, &byProject); err != nil {
			e.Warn("%s: %q is not an object of directories and rules: %v; remove it", e.Show(e.UserConfigFile()), rememberedKey, err)
			return nil
		}
	}
	var rules permission.Rules
	for _, raw := range byProject[e.ProjectDir] {
		var text string
		r, err := permission.Rule{}, json.Unmarshal(raw, &text)
		if err == nil {
			r, err = permission.ParseRule(text)
		}
		if err != nil {
			e.Warn("%s: %s of %s is not a permission rule; left out", e.Show(e.UserConfigFile()), Printable(truncateRunes(string(raw), 100)), rememberedKey)
			continue
		}
		rules = append(rules, r)
	}
	return rules
}

// rememberRules adds rules to those the user allowed for good in this
// project, each once.
func (e *Env) rememberRules(rules permission.Rules) error {
	if len(rules) == 0 {
		return nil
	}
	return e.updateProjects(rememberedKey, func(raw json.RawMessage) (any, error) {
		byProject := map[string][]string{}
		_ = json.Unmarshal(raw, &byProject) // a broken record is replaced
		list := byProject[e.ProjectDir]
		for _, r := range rules {
			if s := r.String(); !slices.Contains(list, s) {
				list = append(list, s)
			}
		}
		byProject[e.ProjectDir] = list
		return byProject, nil
	})
}
