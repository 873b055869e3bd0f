// Package uicmd is offshoot's ui command: the session inspector (package
// inspector) served on this machine over the store sessions reads.
package uicmd

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/inspector"
	"github.com/offshoot-dev/offshoot/internal/loopback"
)

// Command returns the ui command.
func Command(env *cli.Env) *cobra.Command {
	var flags cli.StoreFlags
	var listen string
	var actions bool
	cmd := &cobra.Command{
		Use:   "ui [--store DSN] [--listen ADDR] [--allow-actions]",
		Short: "Inspect the stored sessions in a browser: chat, timeline, state at any seq, diffs, the fork tree, live",
		Long: `ui serves the session inspector, a web page over the store the sessions
commands read (.offshoot/sessions.db in the project by default, another
SQLite file or a postgres:// URL with --store), and prints its URL; it
opens nothing by itself. Stop it with Ctrl-C.

The page lists the sessions (search, sort, pages); shows a session's chat
beside its timeline of committed batches; its state at any seq (files,
plan, every slice as a JSON tree); the diff between two seqs; the tree of
its subagents and forks; and a session being written as it commits.

It listens on 127.0.0.1 (a free port) unless --listen says otherwise; an
address others can reach is warned about. Every request needs the random
token in the printed URL (the browser keeps it in a cookie), and requests
naming another host or coming from another site are refused. It only
reads, unless --allow-actions: then it can fork a session at a seq (and
print the 'offshoot chat --resume' command), export a snapshot, and
preview writing a session's files back to the project.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if flags.Off {
				return cli.Usagef("--no-store: ui reads a store; leave it out for %s, or give another with --store", cli.SessionsPath)
			}
			if host, _, err := net.SplitHostPort(listen); err != nil {
				return cli.Usagef("--listen %s: give a host and port, such as 127.0.0.1:8080 (port 0: a free one)", cli.Printable(listen))
			} else if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
				return cli.Usagef("--listen %s: give the address the browser will open (such as 192.168.1.5:8080), which every request must name, not every address", cli.Printable(listen))
			}
			ctx := cmd.Context()
			st, err := env.OpenStore(ctx, flags, true)
			if err != nil {
				return err
			}
			if st == nil {
				where := cli.SessionsPath
				if flags.DSN != "" {
					where = env.StoreFile(flags)
				}
				return cli.Usagef("no sessions stored yet: %s does not exist; run or chat stores them, or give a store with --store", where)
			}
			defer st.Close()
			sets, err := cli.SessionReducers()
			if err != nil {
				return cli.Failf("offshoot's tools: %v; this is a bug, please report it", err)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return cli.Failf("cannot listen on %s: %v; give another address with --listen", cli.Printable(listen), err)
			}
			defer ln.Close()
			addr := ln.Addr().String()
			if !loopback.Is(addr) {
				env.Warn("ui listens on %s, an address other machines may reach: anyone with the URL's token can read the sessions; use 127.0.0.1 unless you mean it", addr)
			}
			ui, err := inspector.New(st, inspector.Options{Host: addr, Reducers: sets, AllowActions: actions, ProjectDir: env.ProjectDir})
			if err != nil {
				return cli.Failf("%v", err)
			}
			srv := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			mode := "read-only"
			if actions {
				mode = "actions allowed"
			}
			fmt.Fprintf(env.Stdout, "offshoot ui: the sessions of %s, %s, at\n%s\n(Ctrl-C to stop)\n", st.Where, mode, ui.URL())
			select {
			case <-ctx.Done():
				_ = srv.Close()
				<-served
				return nil
			case err := <-served:
				if errors.Is(err, http.ErrServerClosed) {
					return nil
				}
				return cli.Failf("the inspector stopped: %v", err)
			}
		},
	}
	flags.Add(cmd, "inspect the sessions of")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "the address to serve at (port 0: a free one)")
	cmd.Flags().BoolVar(&actions, "allow-actions", false, "let the page fork sessions, export snapshots and preview write-backs")
	return cmd
}
