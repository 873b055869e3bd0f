//go:build !unix

package shell_test

import "errors"

func mkfifo(string) error { return errors.New("no named pipes here") }
