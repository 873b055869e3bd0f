package vfs

import (
	"errors"

	"github.com/offshoot-dev/offshoot/serde"
)

// RegisterNames gives the VFS state and event types stable names in reg
// ("offshoot.vfs.Table", …), so snapshot JSON holding them does not depend
// on this package's import path. serde.DefaultRegistry has them from the
// start, and Install adds them to the registry of the session it installs
// on, leaving alone any type the program named itself.
func RegisterNames(reg *serde.Registry) error {
	return errors.Join(
		serde.Register[Table](reg, "offshoot.vfs.Table"),
		serde.Register[FileWritten](reg, "offshoot.vfs.FileWritten"),
		serde.Register[FileDeleted](reg, "offshoot.vfs.FileDeleted"),
		serde.Register[FilesSeeded](reg, "offshoot.vfs.FilesSeeded"),
	)
}

func init() { _ = RegisterNames(serde.DefaultRegistry) }
