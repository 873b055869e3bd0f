package vfs

import (
	"errors"
	"reflect"

	"github.com/offshoot-dev/offshoot/serde"
)

// names are the stable names of the VFS state and event types in snapshot
// JSON ("offshoot.vfs.Table", …), so that it does not depend on this
// package's import path.
var names = map[reflect.Type]string{
	reflect.TypeFor[Table]():       "offshoot.vfs.Table",
	reflect.TypeFor[FileWritten](): "offshoot.vfs.FileWritten",
	reflect.TypeFor[FileDeleted](): "offshoot.vfs.FileDeleted",
	reflect.TypeFor[FilesSeeded](): "offshoot.vfs.FilesSeeded",
}

// RegisterNames gives the VFS state and event types stable names in reg
// ("offshoot.vfs.Table", …), so snapshot JSON holding them does not depend
// on this package's import path. serde.DefaultRegistry has them from the
// start, and installing the VFS reducers adds them to the registry of the
// session, leaving alone any type the program named itself.
func RegisterNames(reg *serde.Registry) error {
	var errs []error
	for t, name := range names {
		errs = append(errs, reg.RegisterType(t, name))
	}
	return errors.Join(errs...)
}

func init() { _ = RegisterNames(serde.DefaultRegistry) }
