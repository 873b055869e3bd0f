package agentscmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// newFlags are the flags of agents new.
type newFlags struct {
	scope       string
	description string
	tools       []string
	model       string
	prompt      string
	generate    string
}

func newCommand(env *cli.Env) *cobra.Command {
	var f newFlags
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Create an agent file, written by you or drafted by the main model",
		Long: `new writes the agent NAME as a Markdown file you can edit:
.offshoot/agents/NAME.md in the project (--scope project, the default) or
~/.offshoot/agents/NAME.md for the user (--scope user). It never overwrites
a file.

Give the fields with the flags, or let the main model draft them from a
sentence with --generate; flags given with --generate win over the draft.
Without --generate, --description is required and --prompt, when left out,
is a starting text to replace.`,
		Example: `  offshoot agents new code-reviewer --description "Reviews code for quality. Use it after changes." --tools read_file,grep,glob --model light
  offshoot agents new test-writer --generate "writes table-driven Go tests for a package"`,
		Args: cli.Args("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNew(cmd, env, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scope, "scope", "project", "where the file goes: project (.offshoot/agents) or user (~/.offshoot/agents)")
	fl.StringVar(&f.description, "description", "", "one line saying when the main agent should use this agent")
	fl.StringSliceVar(&f.tools, "tools", nil, `the tools it may use, comma-separated (left out: all its caller's; "" for none)`)
	fl.StringVar(&f.model, "model", "", "its model: main, light, inherit or a configured name (left out: inherit)")
	fl.StringVar(&f.prompt, "prompt", "", "its system prompt")
	fl.StringVar(&f.generate, "generate", "", "what the agent should do, for the main model to draft the definition from")
	return cmd
}

func runNew(cmd *cobra.Command, env *cli.Env, name string, f newFlags) error {
	if err := checkName(name); err != nil {
		return err
	}
	var src agents.Source
	var root string
	switch f.scope {
	case "project":
		src, root = agents.Project, env.ProjectDir
	case "user":
		src, root = agents.User, env.HomeDir
		if root == "" {
			return cli.Usagef("there is no home directory for --scope user: set HOME or give --home DIR")
		}
	default:
		return cli.Usagef("--scope %q: use project or user", f.scope)
	}
	generating := cmd.Flags().Changed("generate")
	if generating && strings.TrimSpace(f.generate) == "" {
		return cli.Usagef(`--generate is empty; say what the agent should do, such as --generate "reviews Go code for error handling"`)
	}
	if !generating && strings.TrimSpace(f.description) == "" {
		return cli.Usagef(`give --description "when the main agent should use it", or --generate "what it should do" to have the main model draft the agent`)
	}
	path := filepath.Join(root, ".offshoot", "agents", name+".md")
	if _, err := os.Lstat(path); err == nil {
		return cli.Failf("%s already exists; change it with 'offshoot agents edit %s' or remove it with 'offshoot agents rm %s'", env.Show(path), name, name)
	}
	s, err := load(env, nil)
	if err != nil {
		return err
	}
	if err := s.checkFree(name, src, path); err != nil {
		return err
	}

	def := agents.Definition{Name: name, Description: f.description, Model: f.model, Prompt: f.prompt}
	if cmd.Flags().Changed("tools") {
		def.Tools = cleanTools(f.tools)
	}
	if err := checkFlags(def); err != nil {
		return err
	}
	if generating {
		router, err := env.Models()
		if err != nil {
			return err
		}
		d, err := generate(cmd.Context(), router, name, f.generate, draftTools(s.tools.Names()), cli.ServerNames(s.servers))
		if err != nil {
			return err
		}
		def = merge(def, d, cmd.Flags().Changed("tools"))
	}
	if strings.TrimSpace(def.Prompt) == "" {
		def.Prompt = starterPrompt(name)
	}
	text, err := format(def)
	if err != nil && !generating {
		return cli.Usagef("%v", err)
	}
	if err != nil {
		return cli.Failf("the model's draft cannot be written as an agent file: %v; run again, or give the fields yourself with --description, --tools, --model and --prompt", err)
	}
	if err := write(path, text); err != nil {
		return cli.Failf("cannot write %s: %v; check the directory's permissions", env.Show(path), err)
	}
	fmt.Fprintf(env.Stdout, "created %s (%s agent %s)\n", env.Show(path), src, name)
	s.reload()
	s.report(path)
	s.notePrecedence(name, src, path)
	fmt.Fprintf(env.Stdout, "change it with 'offshoot agents edit %s'\n", name)
	return nil
}

// checkName checks that name is a valid agent name, as agents.Format
// requires.
func checkName(name string) error {
	_, err := agents.Format(agents.Definition{Name: name, Description: "d", Prompt: "p"})
	var d *agents.Diagnostic
	if errors.As(err, &d) {
		return cli.Usagef("%s", d.Message)
	}
	if err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

// checkFlags checks the fields given with flags, so that their mistakes
// are usage errors rather than the model's.
func checkFlags(def agents.Definition) error {
	probe := def
	if strings.TrimSpace(probe.Description) == "" {
		probe.Description = "d"
	}
	if strings.TrimSpace(probe.Prompt) == "" {
		probe.Prompt = "p"
	}
	if _, err := format(probe); err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

// format is agents.Format for text that is valid UTF-8 only: YAML would
// write other bytes in a form agent files may not use.
func format(def agents.Definition) ([]byte, error) {
	fields := append([]string{def.Name, def.Description, def.Model, def.Prompt}, def.Tools...)
	for _, f := range fields {
		if !utf8.ValidString(f) {
			return nil, fmt.Errorf("%q is not valid UTF-8 text; use only UTF-8 text in an agent", f)
		}
	}
	return agents.Format(def)
}

// checkFree refuses to create an agent that its own level already defines
// elsewhere: in that level's config.json (which would hide the new file)
// or in another file of the same directory.
func (s *setup) checkFree(name string, src agents.Source, path string) error {
	d, broken, ok := named(s.level(src), name)
	if !ok {
		return nil
	}
	where := d.Path
	if broken != nil {
		where = broken.Path
	}
	if filepath.Dir(where) == filepath.Dir(path) || isConfigFile(where) {
		hint := fmt.Sprintf("change it with 'offshoot agents edit %s'", name)
		if isConfigFile(where) {
			hint = "change it in that file, or remove it from \"agents\" there first"
		}
		return cli.Failf("agent %s is already defined in %s; %s", name, s.env.Show(where), hint)
	}
	return nil
}

// notePrecedence says whether the new definition at path is in force, and
// which definition of the name it replaces.
func (s *setup) notePrecedence(name string, src agents.Source, path string) {
	out := s.env.Stdout
	if d, broken, ok := named(s.reg, name); ok && broken == nil && d.Path != path {
		fmt.Fprintf(out, "note: the %s agent %s from %s takes precedence over it here\n", d.Source, name, s.fileOf(d))
		return
	}
	if src == agents.Project {
		if u, broken, ok := named(s.level(agents.User), name); ok && broken == nil {
			fmt.Fprintf(out, "it replaces the user agent %s from %s in this project\n", name, s.fileOf(u))
			return
		}
	}
	if builtin(name) {
		fmt.Fprintf(out, "it replaces the built-in agent %s\n", name)
	}
}

// builtin reports whether name is a built-in agent.
func builtin(name string) bool {
	d, _, ok := named(agents.Load(agents.Options{}), name)
	return ok && d.Source == agents.Builtin
}

// report prints the errors and warnings about the file path.
func (s *setup) report(path string) (errs int) {
	es, ws := diagnostics(s.reg, path)
	for _, d := range es {
		fmt.Fprintln(s.env.Stdout, s.line("error", d))
	}
	for _, d := range ws {
		fmt.Fprintln(s.env.Stdout, s.line("warning", d))
	}
	return len(es)
}

// cleanTools trims the entries of --tools and drops empty ones, so that
// --tools "" means no tools.
func cleanTools(ts []string) []string {
	out := []string{}
	for _, t := range ts {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// starterPrompt is the system prompt of an agent created without one: a
// plain working prompt for the user to make their own.
func starterPrompt(name string) string {
	return fmt.Sprintf("You are the %s agent. Work on the task you are given until it is done, and check what you claim with your tools. Answer with a short report: what you did, what you found, and what is left open.", name)
}

// write creates path with text, refusing to replace a file.
func write(path string, text []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("it was created meanwhile")
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(text); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}
