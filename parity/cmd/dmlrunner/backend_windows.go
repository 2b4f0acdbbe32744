//go:build windows

package main

import "github.com/vkdml/vkdml/internal/dmlcom"

func newBackend(dll string, debug bool) (backend, error) {
	d, err := dmlcom.Open(dmlcom.Options{DLL: dll, Debug: debug})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func exitNow(code int) { dmlcom.ExitNow(code) }
