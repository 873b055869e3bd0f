package project

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// SkillToolName is the name of the tool that loads a skill.
const SkillToolName = "Skill"

// skillsFolder is the folder of the virtual filesystem a skill's files
// are mounted under: the files of skill NAME are under
// .offshoot/skills/NAME/. A write-back never writes .offshoot, so what
// an agent changes there stays in its session.
const skillsFolder = ".offshoot/skills"

// skillsKey is the key the Skill tool's reducers are installed under.
const skillsKey = "github.com/offshoot-dev/offshoot/project.skills"

// SkillActivated is the event of a call of the Skill tool: the skill now
// active in the session, whose AllowedTools (when not nil) narrow what
// the agent may call until the next query. The zero value, dispatched at
// the start of a query, means none.
type SkillActivated struct {
	// Name is the skill's name; "" for none.
	Name string `json:"name,omitempty"`
	// AllowedTools are the skill's allowed-tools.
	AllowedTools []string `json:"allowed_tools,omitempty"`
}

// ActiveSkill returns the skill active in s (the latest SkillActivated),
// and false when none is.
func ActiveSkill(s *session.Session) (SkillActivated, bool) {
	a, _ := session.Latest[SkillActivated](s)
	return a, a.Name != ""
}

// Allows reports whether the active skill lets the agent call the tool
// name, among the tools it has: a skill without allowed-tools allows
// everything; one with them allows the tools they name (Claude Code's names
// mapped as agent files' are; an entry with an argument rule, such as
// "Bash(git diff:*)", names nothing yet: it is not honoured, so allows
// nothing more) and the Skill tool itself.
func (a SkillActivated) Allows(name string, available tools.Toolset) bool {
	if a.Name == "" || a.AllowedTools == nil || name == SkillToolName {
		return true
	}
	allowed, err := agents.Definition{Tools: a.AllowedTools}.ResolveTools(available, false)
	if err != nil {
		return false
	}
	_, ok := allowed.Lookup(name)
	return ok
}

// skillParams are the Skill tool's arguments.
type skillParams struct {
	Skill string `json:"skill" validate:"required" jsonschema:"the name of the skill to load, one of those listed"`
	Args  string `json:"args,omitempty" jsonschema:"what the skill is to work on, if anything"`
}

// skillResult is what the model reads besides the message.
type skillResult struct {
	Name  string `json:"name"`
	Files string `json:"files,omitempty"`
}

// Mounts returns the mounts (for offshoot.Options.Mounts, vfs.Options) that
// copy every skill's folder into the virtual filesystem, under
// .offshoot/skills/NAME, so that the usual tools read the files a skill's
// instructions point to. A folder too large to give (Skill.Mounted is
// false) is left out.
func (s *Skills) Mounts() []vfs.Mount {
	if s == nil {
		return nil
	}
	var out []vfs.Mount
	for _, k := range s.All {
		if k.Mounted {
			out = append(out, vfs.Mount{HostPath: k.Dir, MountPath: path.Join(skillsFolder, k.Name), MaxBytes: maxSkillFolderBytes})
		}
	}
	return out
}

// SkillTool returns the Skill tool over s: its description lists the
// skills the model may load (all but the Hidden ones), by name and
// description; a call with a name returns the skill's instructions, says
// where its files are, and makes it the session's active skill (the
// SkillActivated event), whose allowed-tools a program enforces with
// Allows. It returns nil when s offers no skill.
func SkillTool(s *Skills) (tools.Tool, error) {
	if s == nil {
		return nil, nil
	}
	var list strings.Builder
	for _, k := range s.All {
		if !k.Hidden {
			fmt.Fprintf(&list, "\n- %s: %s", k.Name, strings.Join(strings.Fields(k.Description), " "))
		}
	}
	if list.Len() == 0 {
		return nil, nil
	}
	desc := "Load a skill: instructions for one kind of task, with files beside them. " +
		"When a task matches a skill's description, call this first with the skill's name, then follow the instructions it returns.\n\n" +
		"Available skills:" + list.String()
	handler := func(_ context.Context, _ *tools.Invocation, p skillParams) (tools.Result[skillResult], error) {
		k, ok := s.Find(p.Skill)
		if !ok || k.Hidden {
			var names []string
			for _, k := range s.All {
				if !k.Hidden {
					names = append(names, k.Name)
				}
			}
			return tools.Failed[skillResult](fmt.Sprintf("There is no skill %q. The skills are: %s.", clip(p.Skill), strings.Join(names, ", "))), nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "The skill %s is loaded. Follow its instructions below.", k.Name)
		files := ""
		if k.Mounted {
			files = path.Join(skillsFolder, k.Name) + "/"
			fmt.Fprintf(&b, " Its files are under %s: a path the instructions give is relative to that folder; read them with read_file, find them with glob.", files)
		}
		if k.AllowedTools != nil {
			fmt.Fprintf(&b, " While it is active, for the rest of this task, you may use only these tools: %s.", strings.Join(slices.Concat(k.AllowedTools, []string{SkillToolName}), ", "))
		}
		if strings.TrimSpace(p.Args) != "" {
			fmt.Fprintf(&b, "\n\nWhat it is to work on: %s", p.Args)
		}
		b.WriteString("\n\n" + k.Body)
		return tools.Result[skillResult]{
			Message: b.String(), Value: skillResult{Name: k.Name, Files: files}, Success: true,
			Events: []any{SkillActivated{Name: k.Name, AllowedTools: slices.Clone(k.AllowedTools)}},
		}, nil
	}
	return tools.New(SkillToolName, desc, handler, tools.WithReducers(SkillReducers()))
}

// SkillReducers returns what the SkillActivated event needs on a session:
// the Skill tool declares it; a program that dispatches SkillActivated
// itself (to end a skill at the start of a query) installs it.
func SkillReducers() session.Reducers {
	return session.Reducers{
		Key:   skillsKey,
		Rules: []session.Rule{session.On(session.ReplaceLatest[SkillActivated])},
		Names: map[reflect.Type]string{reflect.TypeFor[SkillActivated](): "offshoot.project.SkillActivated"},
	}
}
