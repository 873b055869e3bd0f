// Package shell gives a model the bash tool: shell commands on its
// session's files, with the isolation of a session kept.
//
// Each call runs the command with /bin/sh -c in a scratch directory that
// holds a copy of the calling session's files (package vfs), then turns
// the files the command created, edited or deleted there into
// vfs.FileWritten and vfs.FileDeleted events of that session. So a forked
// child's commands change the child's files only, never its parent's nor
// a sibling's; a snapshot or rollback covers them; and what a child
// hands back reaches its parent as any other artifact.
//
// A session's directory is kept while the tool keeps it (the 64 used
// last) and synced before each command by what changed, so a second
// command writes only the files changed since. Binary files, files over
// 48,000 characters, symbolic links and other special files stay out of
// the session's files: the model is told of them.
//
// A command has no standard input; its standard output and error are read
// together, and the model reads at most 30,000 characters of them (the
// start and the end), however much it prints. It runs 2 minutes by
// default, 10 at most; when time is up, or the call's context ends, its
// process group is killed — and when it exits, whatever it left running
// in the background too. Its environment is PATH, LANG, HOME (the scratch
// directory) and what Options.Env adds; nothing else of the program's is
// passed on (though an unconfined command can read it: see below).
//
// A scratch directory does not confine a command by itself. Where
// bubblewrap (bwrap) is installed and can make namespaces, commands run
// inside it: the scratch directory writable, the system's directories and
// a few files of /etc read-only, a private /tmp, their own process ids,
// and no network unless Options.Network allows it; the user's home, the
// directory the files were copied from and the rest of the machine are
// not visible. Elsewhere — or with Options.Unconfined — a command runs as
// the user: it can read and change whatever the user can, the program's
// own environment (its model keys, in /proc/<pid>/environ) included, and
// reach the network. The tool's description tells the model so;
// Tool.Confined tells the program, whose approval prompt should say it.
//
// The tool is opt-in: a program adds it to an agent's tools itself.
// Claude Code agent definitions that list Bash get it when the program
// offers it.
package shell
