package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"
)

// The bounds of a settings file's hooks.
const (
	maxSettingsBytes = 1 << 20
	maxHooks         = 100  // command hooks of one file
	maxEnv           = 200  // variables of "env"
	maxMatcher       = 1000 // bytes of a matcher
	maxCommand       = 8192 // bytes of a command
	maxTimeout       = 10 * time.Minute
)

// events are the events a settings file may name, in the order their
// hooks are listed.
var events = []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStart, SubagentStop, PreCompact, SessionStart, SessionEnd, Notification}

// ParseSettings reads the "hooks" and "env" of a Claude Code settings
// file's JSON (.claude/settings.json, .claude/settings.local.json,
// ~/.claude/settings.json):
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//	    {"type": "command", "command": "./check.sh", "timeout": 30}]}]},
//	 "env": {"GOFLAGS": "-mod=mod"}}
//
// into Hooks whose List holds one command Hook per command (its matcher
// as written, its timeout in seconds) and whose Env holds "env" without
// its model keys; the caller sets Dir. JSON that is not an object, or a
// file over 1 MiB, is an error. An unknown event, a hook of another type
// than "command", a matcher that is not a regular expression, a bad
// timeout, more than 100 hooks, and a variable that cannot be given are
// warnings, and the rest is kept. "disableAllHooks": true gives no hooks.
// Its other keys (permissions, …) are not read here.
func ParseSettings(data []byte) (h Hooks, warnings []string, err error) {
	if len(data) > maxSettingsBytes {
		return h, nil, fmt.Errorf("the settings are %d bytes long; a settings file holds at most %d", len(data), maxSettingsBytes)
	}
	var file struct {
		Hooks   map[string]json.RawMessage `json:"hooks"`
		Env     map[string]json.RawMessage `json:"env"`
		Disable bool                       `json:"disableAllHooks"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&file); err != nil {
		return h, nil, fmt.Errorf("the settings are not a JSON object with \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"…\"}]}]}: %v", err)
	}
	warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	h.Env, warnings = parseEnv(file.Env)
	if file.Disable {
		if len(file.Hooks) > 0 {
			warn("disableAllHooks is true: none of the file's hooks runs")
		}
		return h, warnings, nil
	}
	for _, name := range slices.Sorted(maps.Keys(file.Hooks)) {
		if !slices.Contains(events, Event(name)) {
			warn("hooks.%s: offshoot has no such event (it has %v); its hooks do not run", printable(name), events)
		}
	}
	for _, ev := range events {
		raw, ok := file.Hooks[string(ev)]
		if !ok {
			continue
		}
		var groups []struct {
			Matcher *string           `json:"matcher"`
			Hooks   []json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(raw, &groups); err != nil {
			warn("hooks.%s: a list of {\"matcher\": …, \"hooks\": […]} is expected; its hooks do not run", ev)
			continue
		}
		for gi, g := range groups {
			at := fmt.Sprintf("hooks.%s[%d]", ev, gi)
			matcher := ""
			if g.Matcher != nil {
				matcher = *g.Matcher
			}
			if len(matcher) > maxMatcher {
				warn("%s: its matcher is over %d bytes long; its hooks do not run", at, maxMatcher)
				continue
			}
			if matcher != "" && matcher != "*" {
				if _, err := regexp.Compile("^(?:" + matcher + ")$"); err != nil {
					warn("%s: its matcher %q is not a regular expression (%v); its hooks do not run", at, printable(matcher), err)
					continue
				}
			}
			for hi, raw := range g.Hooks {
				at := fmt.Sprintf("%s.hooks[%d]", at, hi)
				k, problem := parseCommand(raw)
				if problem != "" {
					warn("%s: %s", at, problem)
					continue
				}
				if len(h.List) == maxHooks {
					warn("%s: more than %d hooks; the others do not run", at, maxHooks)
					return h, warnings, nil
				}
				k.Event, k.Matcher = ev, matcher
				h.List = append(h.List, k)
			}
		}
	}
	return h, warnings, nil
}

// parseCommand reads one {"type": "command", "command": …, "timeout": …}
// entry; problem says why it does not run.
func parseCommand(raw json.RawMessage) (k Hook, problem string) {
	var e struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Timeout *float64 `json:"timeout"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return k, "a hook is {\"type\": \"command\", \"command\": \"…\", \"timeout\": seconds}; this one is not, and does not run"
	}
	switch {
	case e.Type != "command":
		return k, fmt.Sprintf("hooks of type %q are not supported (only \"command\" is); it does not run", printable(e.Type))
	case e.Command == "":
		return k, "it has no command; it does not run"
	case len(e.Command) > maxCommand:
		return k, fmt.Sprintf("its command is over %d bytes long; it does not run", maxCommand)
	}
	k.Command = e.Command
	if e.Timeout != nil {
		secs := *e.Timeout
		if !(secs > 0) || secs > maxTimeout.Seconds() {
			return k, fmt.Sprintf("its timeout %v is not a number of seconds above 0 and at most %d; it does not run", secs, int(maxTimeout.Seconds()))
		}
		k.Timeout = time.Duration(secs * float64(time.Second))
	}
	return k, ""
}

// parseEnv reads "env": string values, by names a variable can have,
// model keys left out.
func parseEnv(raw map[string]json.RawMessage) (env map[string]string, warnings []string) {
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		var v string
		switch {
		case len(env) == maxEnv:
			warnings = append(warnings, fmt.Sprintf("env: more than %d variables; the others are not given to hooks", maxEnv))
			return env, warnings
		case !validEnvName(name):
			warnings = append(warnings, fmt.Sprintf("env.%s: not a variable's name; not given to hooks", printable(name)))
			continue
		case modelKey(name):
			warnings = append(warnings, fmt.Sprintf("env.%s: a model's key or endpoint is never given to hooks", name))
			continue
		case json.Unmarshal(raw[name], &v) != nil:
			warnings = append(warnings, fmt.Sprintf("env.%s: its value is not a string; not given to hooks", name))
			continue
		}
		if env == nil {
			env = map[string]string{}
		}
		env[name] = v
	}
	return env, warnings
}

// printable shows a file's text in a warning: at most 80 bytes, control
// characters quoted.
func printable(s string) string {
	q := fmt.Sprintf("%q", truncate(s, 80))
	return q[1 : len(q)-1]
}
