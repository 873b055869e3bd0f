package agentscmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func rmCommand(env *cli.Env) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "rm NAME",
		Short: "Delete an agent's file",
		Long: `rm deletes the file of the agent NAME: the one in force, or the one of the
level --scope names (project or user). Built-in agents and agents defined in a
config.json cannot be removed here. Another definition of the same name at a
lower level is in force afterwards.`,
		Args: cli.Args("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			s, err := load(env, nil)
			if err != nil {
				return err
			}
			reg := s.reg
			switch scope {
			case "":
			case "project":
				reg = s.level(agents.Project)
			case "user":
				reg = s.level(agents.User)
			default:
				return cli.Usagef("--scope %q: use project or user", scope)
			}
			d, broken, ok := named(reg, name)
			if !ok {
				if scope != "" {
					return cli.Failf("the %s level defines no agent called %q; 'offshoot agents list' shows where each agent comes from", scope, name)
				}
				near, nearBroken, err := s.find(name)
				if err != nil {
					return err
				}
				if nearBroken != nil {
					near.Name = nearBroken.Agent
				}
				return cli.Failf("no agent is called exactly %q; did you mean %s? 'offshoot agents rm' takes the exact name", name, near.Name)
			}
			path := d.Path
			if broken != nil {
				path = broken.Path
			}
			switch {
			case broken == nil && d.Source == agents.Builtin:
				return cli.Failf("%s is a built-in agent and cannot be removed; to change it for this project, create a project agent of the same name, which replaces it: 'offshoot agents new %s --description ...'", name, name)
			case isConfigFile(path):
				return cli.Failf("agent %s is defined in %s, under \"agents\"; remove it from that file", name, env.Show(path))
			case path == "":
				return cli.Failf("agent %s has no file to remove", name)
			}
			if err := os.Remove(path); err != nil {
				return cli.Failf("cannot remove %s: %v", env.Show(path), err)
			}
			fmt.Fprintf(env.Stdout, "removed %s\n", env.Show(path))
			s.reload()
			switch now, broken, ok := named(s.reg, name); {
			case !ok || broken != nil:
			case now.Source == agents.Builtin:
				fmt.Fprintf(env.Stdout, "agent %s is the built-in one again\n", name)
			default:
				fmt.Fprintf(env.Stdout, "agent %s is now the %s agent from %s\n", name, now.Source, s.fileOf(now))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", "the level to remove the agent from: project or user (default: the one in force)")
	return cmd
}
