// Package snapshotcmd is offshoot's snapshot command: read saved session
// snapshots — a summary of one, the differences between two — and write
// the file changes of one to a directory.
package snapshotcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Command returns the snapshot command and its subcommands.
func Command(env *cli.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Read saved session snapshots: summarize one, compare two, apply one's file changes",
		Long: `A snapshot is a session's whole state saved as JSON (session.MarshalSnapshot):
its identity and its slices — the conversations the runner recorded, the
files of the virtual filesystem, the plan, and every other record. These
commands read snapshots holding offshoot's own types; apply writes the file
changes a saved session holds to the directory they were copied from.`,
	}
	cli.Group(cmd)
	cmd.AddCommand(showCommand(env), diffCommand(env), applyCommand(env))
	return cmd
}

// Registry returns a registry of the types offshoot's snapshots hold, by
// their stable names (cli.SnapshotRegistry).
func Registry() (*serde.Registry, error) { return cli.SnapshotRegistry() }

// read decodes the snapshot saved in the file path, shown as shown.
func read(path string, reg *serde.Registry) (session.Snapshot, error) {
	data, err := regfile.Read(path, maxSnapshotBytes)
	if err != nil {
		return session.Snapshot{}, fmt.Errorf("cannot read the snapshot: %w; check the path", err)
	}
	if unknown := unknownTypes(data, reg); len(unknown) > 0 {
		return session.Snapshot{}, fmt.Errorf("%s holds values of %s offshoot does not know (it reads %s); read it with the program that saved it, which knows its own types",
			path, typesPhrase(unknown), knownPackages)
	}
	snap, err := session.UnmarshalSnapshot(data, reg)
	if err != nil {
		return session.Snapshot{}, fmt.Errorf("%s is not a snapshot offshoot can read: %w", path, err)
	}
	return snap, nil
}

// knownPackages says which types Registry knows.
const knownPackages = "the runner's records, the virtual filesystem and the plan"

// maxSnapshotBytes is the largest snapshot file show and diff read.
const maxSnapshotBytes = 64 << 20

// unknownTypes returns the type names of data's slices that reg does not
// know, sorted. Data that is not a snapshot gives none: decoding then says
// what is wrong with it.
func unknownTypes(data []byte, reg *serde.Registry) []string {
	var out []string
	gjson.GetBytes(data, "slices").ForEach(func(_, slice gjson.Result) bool {
		for _, key := range []string{"slice_type", "item_type"} {
			name := slice.Get(key)
			if name.Type != gjson.String || name.Str == "" {
				continue
			}
			if _, ok := reg.Lookup(name.Str); !ok && !slices.Contains(out, name.Str) {
				out = append(out, name.Str)
			}
		}
		return true
	})
	slices.Sort(out)
	return out
}

func typesPhrase(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return "type " + quoted[0] + ", which"
	}
	return "types " + strings.Join(quoted, ", ") + ", which"
}

func fail(code int, err error) error { return &cli.ExitError{Code: code, Err: err} }
