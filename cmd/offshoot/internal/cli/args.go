package cli

import (
	"github.com/spf13/cobra"
)

// Args returns a cobra argument check for exactly the named arguments
// (such as "NAME" or "A", "B"): a wrong count is a usage error that shows
// the command's usage line.
func Args(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == len(names) {
			return nil
		}
		what := "no arguments"
		switch len(names) {
		case 0:
		case 1:
			what = "one argument, " + names[0]
		default:
			what = "the arguments " + join(names)
		}
		return Usagef("%s takes %s, got %d; usage: %s", cmd.CommandPath(), what, len(args), cmd.UseLine())
	}
}

func join(names []string) string {
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// Group makes cmd a command that only holds subcommands: alone it prints
// its help; with an argument that names no subcommand it is a usage error
// (cobra would print the help and succeed).
func Group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return Usagef("%s has no command %q; run '%s --help' to see its commands", cmd.CommandPath(), args[0], cmd.CommandPath())
		}
		return cmd.Help()
	}
	return cmd
}
