//go:build !windows

package main

import (
	"errors"
	"runtime"
)

func init() {
	openLive = func(*liveOptions) (*liveRig, error) {
		return nil, errors.New("vkdml parity --live drives DirectML.dll through d3d12.dll in this process and needs Windows (or vkdml.exe under Wine: scripts/parity-live.sh); this is " + runtime.GOOS + ". Without --live, vkdml parity compares with the results DirectML wrote into the corpus's golden/ (make parity)")
	}
}
