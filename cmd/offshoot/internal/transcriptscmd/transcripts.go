// Package transcriptscmd is offshoot's transcripts command: list, read and
// prune the transcripts subagents leave on disk (subagent.Options.Transcripts)
// — by default those of the project, under .offshoot/transcripts.
package transcriptscmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// Command returns the transcripts command and its subcommands.
func Command(env *cli.Env) *cobra.Command {
	f := &folder{env: env}
	cmd := &cobra.Command{
		Use:   "transcripts",
		Short: "List, read and prune the transcripts of subagents",
		Long: `Every subagent a run delegates to can leave a transcript: its conversation,
one message per line, and a record of the agent — its type, model, status,
times and usage. offshoot keeps them in the project's ` + cli.TranscriptsPath + `
(one folder per root session); --dir reads another folder.`,
	}
	cli.Group(cmd)
	cmd.PersistentFlags().StringVar(&f.dir, "dir", "", "the transcripts folder (default: "+cli.TranscriptsPath+" in the project)")
	cmd.AddCommand(listCommand(f), showCommand(f), pruneCommand(f))
	return cmd
}

// folder is the transcripts folder a command reads.
type folder struct {
	env *cli.Env
	dir string
}

// open returns the transcripts of the folder: --dir, which must be a
// directory, or the project's.
func (f *folder) open(cmd *cobra.Command) (transcript.Dir, error) {
	if !cmd.Flags().Changed("dir") {
		return transcript.Dir(f.env.TranscriptsDir()), nil
	}
	dir, err := filepath.Abs(f.dir)
	if err != nil {
		return "", cli.Usagef("--dir %s: %v", f.dir, err)
	}
	info, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return "", cli.Usagef("--dir %s: no such directory; give the folder the transcripts are kept in", f.dir)
	case err != nil:
		return "", cli.Usagef("--dir %s: %v; give the folder the transcripts are kept in", f.dir, err)
	case !info.IsDir():
		return "", cli.Usagef("--dir %s is not a directory; give the folder the transcripts are kept in", f.dir)
	}
	return transcript.Dir(dir), nil
}

// show returns the folder as a person reads it best.
func (f *folder) show(t transcript.Dir) string { return f.env.Show(string(t)) }

// listHint is the command that lists the transcripts of the folder.
func (f *folder) listHint(cmd *cobra.Command) string {
	if cmd.Flags().Changed("dir") {
		return fmt.Sprintf("'offshoot transcripts list --dir %s'", f.dir)
	}
	return "'offshoot transcripts list'"
}

// when prints a time in the local zone, to the second.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// took prints how long an agent ran: "-" while it runs.
func took(m transcript.Meta) string {
	if m.FinishedAt.IsZero() || m.StartedAt.IsZero() {
		return "-"
	}
	d := m.FinishedAt.Sub(m.StartedAt)
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}
