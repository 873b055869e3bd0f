package vfs

import (
	"reflect"
)

// names are the stable names of the VFS state and event types in snapshot
// JSON ("offshoot.vfs.Table", …), so that it does not depend on this
// package's import path.
var names = map[reflect.Type]string{
	reflect.TypeFor[Table]():       "offshoot.vfs.Table",
	reflect.TypeFor[FileWritten](): "offshoot.vfs.FileWritten",
	reflect.TypeFor[FileDeleted](): "offshoot.vfs.FileDeleted",
	reflect.TypeFor[filesSeeded](): "offshoot.vfs.FilesSeeded",
	reflect.TypeFor[baseline]():    "offshoot.vfs.Baseline",
}
