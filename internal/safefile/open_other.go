//go:build !unix

package safefile

import "os"

// openRegular opens path and checks the opened file's type. Outside Unix
// there are no FIFOs in the file system to block an open (a Windows named
// pipe is reached by a \\.\pipe\ path, which Stat reports as irregular).
func openRegular(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}
