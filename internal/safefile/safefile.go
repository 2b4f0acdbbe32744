// Package safefile reads the files vkdml is given (profiles, tuning,
// corpora, results, goldens, inputs) and writes the ones it produces,
// safely against careless or hostile paths.
//
// Reading opens a path once and decides from the opened descriptor (fstat,
// not a second look at the path, so the answer cannot change between the
// check and the read) that it is a regular file no larger than the
// caller's bound. Anything else (a FIFO, a device such as /dev/zero or
// /dev/urandom, a directory, a socket) is refused with the path and what
// it is, before anything is allocated from it. On Unix the open itself
// uses O_NONBLOCK, so that opening a FIFO with no writer returns at once
// instead of waiting for one; the flag is cleared before a regular file
// is read. The read goes through an io.LimitReader too, so a file that
// grows after the fstat still stops at the bound.
//
// Writing goes to a temporary file in the target's folder that is synced
// and renamed over the target, so the target holds either its old content
// or the whole new file, never a part, whatever fails.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (a FIFO, a device, a directory, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file larger than the reader's
// bound.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading and returns it with its size, once fstat on
// the opened descriptor shows a regular file of at most limit bytes
// (limit < 0: any size). The error names path and says what it is
// otherwise; errors.Is works with fs.ErrNotExist, ErrNotRegular and
// ErrTooLarge.
func Open(path string, limit int64) (*os.File, int64, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if limit >= 0 && fi.Size() > limit {
		f.Close()
		return nil, 0, tooLarge(path, fi.Size(), limit)
	}
	return f, fi.Size(), nil
}

// ReadFile reads the regular file path whole, refusing (see Open) any
// other kind of file and a file over limit (≥ 0) bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, _, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read one byte past the bound, to see a file that grew after the
	// fstat; a file can also report size 0 yet hold data (/proc files).
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: it grew past the limit of %s while being read", path, ErrTooLarge, Size(limit))
	}
	return b, nil
}

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s: %w: %d bytes, over the limit of %s", path, ErrTooLarge, size, Size(limit))
}

// notRegular is the error for path whose opened descriptor has mode m.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(m))
}

// kind names a file mode's type for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file, mode " + m.String()
}

// Size prints a byte count as KiB, MiB or GiB when it is a whole number of
// them, else in bytes.
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// WriteFile writes path through a temporary file in its folder, which
// write fills, that is synced, given mode perm and renamed over path. On
// any error the temporary file is removed and path is untouched.
func WriteFile(path string, perm fs.FileMode, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename itself durable. Not every platform can sync a
	// folder, and the file is already complete, so this is best effort.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
