package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"

	_ "modernc.org/sqlite"
)

// runSQL is the helper program sql: it runs statements on a SQLite file
// with its foreign keys unchecked, as a hostile or damaged sessions.db
// was written:
//
//	sql FILE STATEMENTS
func runSQL() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sql FILE STATEMENTS")
		os.Exit(2)
	}
	db, err := sql.Open("sqlite", os.Args[1])
	if err == nil {
		db.SetMaxOpenConns(1)
		_, err = db.Exec("PRAGMA foreign_keys = OFF; " + os.Args[2])
		err = errors.Join(err, db.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sql:", err)
		os.Exit(1)
	}
}
