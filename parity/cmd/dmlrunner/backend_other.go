//go:build !windows

package main

import (
	"errors"
	"os"
	"runtime"
)

func newBackend(dll string, debug bool) (backend, error) {
	return nil, errors.New("dmlrunner drives DirectML through d3d12.dll and needs Windows (or Wine: see .ci/parity (make parity)); this is " + runtime.GOOS)
}

func exitNow(code int) { os.Exit(code) }
