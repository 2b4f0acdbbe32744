//go:build !unix

package safefiletest

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
