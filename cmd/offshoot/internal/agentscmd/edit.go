package agentscmd

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func editCommand(env *cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "edit NAME",
		Short: "Open an agent's file in $VISUAL or $EDITOR, then validate it",
		Long: `edit opens the file of the agent NAME in your editor ($VISUAL, else $EDITOR),
then loads it again and reports its errors and warnings. A definition that
does not load can be edited too, to fix it. Built-in agents and agents
defined in a config.json cannot be edited here.`,
		Args: cli.Args("NAME"),
		RunE: func(_ *cobra.Command, args []string) error {
			name := args[0]
			s, err := load(env, nil)
			if err != nil {
				return err
			}
			d, broken, err := s.find(name)
			if err != nil {
				return err
			}
			path := d.Path
			if broken != nil {
				path = broken.Path
			}
			switch {
			case broken == nil && d.Source == agents.Builtin:
				return cli.Failf("%s is a built-in agent and cannot be edited; to change it for this project, create a project agent of the same name, which replaces it: 'offshoot agents new %s --description ...'", d.Name, d.Name)
			case isConfigFile(path):
				return cli.Failf("agent %s is defined in %s, under \"agents\"; edit that file", name, env.Show(path))
			case path == "":
				return cli.Failf("agent %s has no file to edit", name)
			}
			editor := strings.Fields(env.Getenv("VISUAL"))
			if len(editor) == 0 {
				editor = strings.Fields(env.Getenv("EDITOR"))
			}
			if len(editor) == 0 {
				return cli.Usagef("no editor is set: set VISUAL or EDITOR to your editor's command, such as EDITOR=vi, or edit %s yourself", env.Show(path))
			}
			// Not tied to the command's context: Ctrl-C belongs to the
			// editor while it runs (vi cancels a command with it), so it
			// must not kill the editor.
			run := exec.Command(editor[0], append(editor[1:], path)...)
			run.Stdin, run.Stdout, run.Stderr = env.Stdin, env.Stdout, env.Stderr
			if err := run.Run(); err != nil {
				return cli.Failf("the editor %q failed: %v; %s is as the editor left it", strings.Join(editor, " "), err, env.Show(path))
			}
			s.reload()
			if s.report(path) > 0 {
				return cli.Failf("%s has errors, so the agent is left out; fix them with 'offshoot agents edit %s'", env.Show(path), name)
			}
			if _, _, ok := named(s.reg, name); !ok {
				fmt.Fprintf(env.Stdout, "%s now defines another agent; 'offshoot agents list' shows them all\n", env.Show(path))
				return nil
			}
			fmt.Fprintf(env.Stdout, "%s: agent %s is valid\n", env.Show(path), name)
			return nil
		},
	}
}
