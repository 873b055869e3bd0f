package runcmd

import (
	"fmt"
	"path/filepath"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// writeBack shows the files the run changed in the directory it copied in
// as a diff, and writes them there with --write, or after a yes at a
// terminal; --dry-run only shows them. Files changed on disk since the
// run copied them are left, and make exit code 1.
func (r *run) writeBack(client *offshoot.Client) error {
	dir, err := filepath.Abs(r.dir())
	if err != nil {
		return cli.Failf("--dir %s: %v", r.dir(), err)
	}
	out, ask := r.env.Out(), cli.AskOnTerminal(r.env.Stdin, r.env.Stdout)
	if r.json { // standard output holds events only
		out, ask = r.env.Err(), cli.AskOnTerminal(r.env.Stdin, r.env.Stderr)
	}
	if r.writeFlags.Write || r.writeFlags.DryRun {
		ask = nil
	}
	if !r.json {
		fmt.Fprintln(out)
	}
	return r.env.RunWriteBack(cli.WriteBack{
		Snapshot: client.Session().Snapshot(),
		Dir:      dir,
		Flags:    r.writeFlags,
		Ask:      ask,
		Out:      out,
		Prefix:   "offshoot run: ",
		Later:    r.later(client, dir),
	})
}

// later says how to write the changes after the run.
func (r *run) later(client *offshoot.Client, dir string) string {
	switch {
	case r.env.Stored != nil:
		store := ""
		if r.flags.Store.DSN != "" {
			store = " --store " + r.env.Stored.Where // a URL without its password
		}
		return fmt.Sprintf("write them with 'offshoot sessions apply %s --dir %s%s --write', or run again with --write", client.Session().ID(), r.env.Show(dir), store)
	case r.flags.Save != "":
		return fmt.Sprintf("write them with 'offshoot snapshot apply %s --dir %s --write', or run again with --write", r.flags.Save, r.env.Show(dir))
	}
	return "run again with --write to write them, or with --save FILE to keep them for 'offshoot snapshot apply'"
}
