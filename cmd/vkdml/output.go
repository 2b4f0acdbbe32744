package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/vkdml/vkdml/tensor"
)

// How `vkdml run` writes its outputs, all or none:
//
//   - Every output must be a regular file or a new name in an existing
//     folder. A folder, a FIFO, a device (/dev/null included), a socket or a
//     dangling symbolic link is refused before the device runs: such a path
//     cannot be replaced without changing what it is, and writing into it in
//     place could neither be undone nor, for a FIFO with no reader, finish.
//   - An output may not be the same file as an input or as another output;
//     os.SameFile decides, so hard links and symbolic links (to the file or
//     to a folder on its path) are seen through.
//   - Each output is staged in a temporary file with a short name
//     (.vkdml-XXXXXXXX.tmp) in its destination's folder, so that every legal
//     destination name works. Only when every output is staged are they
//     renamed into place. An existing destination is first hard-linked (or,
//     where links are not supported, renamed) to a backup name, and if any
//     rename fails the destinations already replaced get their old contents
//     back: either every output changes or none does.
//   - A symbolic link to an existing file is followed: the file it names is
//     replaced and the link stays.
//   - New files are created with mode 0666 minus the umask, like any file a
//     command writes; a replaced file keeps its mode.
//   - A signal that would end vkdml while the outputs are written removes
//     the temporary files (and puts back any destination already replaced)
//     before vkdml exits with 128 + the signal number. These are the
//     signals on which Go's runtime ends a program that does not catch
//     them (terminatingSignals, per platform):
//       - SIGHUP (a closed terminal or ssh session), SIGINT, SIGTERM: the
//         runtime exits.
//       - SIGQUIT, SIGABRT: the runtime prints every goroutine and exits;
//         caught while the outputs are written, they print no trace.
//       - SIGPIPE: the runtime dies of it when a write to stdout or stderr
//         fails with EPIPE, and ignores one sent by kill(2); the two reach
//         the handler alike, so while the outputs are written either ends
//         vkdml. Catching it also keeps the handler's own message to a
//         closed stderr from killing vkdml before it has exited 128 + the
//         first signal.
//       - SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGSYS and, on Linux,
//         SIGSTKFLT, when sent by kill(2): the runtime prints a trace and
//         exits. A real fault never reaches the handler; it stays a panic
//         or a crash.
//     Not caught, because the runtime ignores them and the write goes on:
//     SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGIO, SIGPWR, SIGURG,
//     SIGWINCH, SIGCHLD, the real-time signals, SIGXCPU (the SIGKILL the
//     kernel sends at the hard CPU limit cannot be caught) and SIGXFSZ (the
//     write past the file size limit fails with EFBIG, and the outputs are
//     undone as on any error). SIGPROF is the runtime's profiler's; the stop
//     signals stop, and SIGKILL and SIGSTOP cannot be caught.
//     A signal ignored when vkdml started stays ignored: under nohup a
//     hangup, and in a script's background job an interrupt, leave the
//     write to finish, as they would without the handler.
//   - A closed stdout or stderr never splits the outputs: `vkdml run`
//     prints nothing while it writes them, the runtime opens /dev/null on a
//     standard descriptor closed at start (so no staged file takes its
//     number), and a message that fails after the commit (a closed pipe)
//     shows in the exit status.

// outputHelp is the paragraph `vkdml run -h` prints about output files.
const outputHelp = `Outputs are written all or none: each is staged in a temporary file beside
it, and only when all are staged are they renamed into place (a failed rename
puts back the files already replaced). A signal that would end vkdml while it
writes them - SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGABRT, SIGPIPE, and SIGILL,
SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGSYS (and SIGSTKFLT on Linux) sent by
kill - removes the temporaries and puts back the files already replaced, and
vkdml exits with 128 + the signal number. A signal ignored at start (nohup)
stays ignored. SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM and SIGXCPU are ignored,
as in any Go program; past the file size limit (SIGXFSZ) the write fails and
no output changes.
An output must be a regular file or a new name: folders, FIFOs and devices
such as /dev/null are refused, as is an output that is the same file as the
input or as another output (symbolic and hard links are seen through). New
files get mode 0666 minus the umask; a replaced file keeps its mode.
`

// outputFile is one destination of writeOutputs.
type outputFile struct {
	path   string      // as the user named it, for messages
	target string      // the file written: path, or the file its symlink names
	exists bool        // target exists (and is a regular file)
	info   fs.FileInfo // target's info when it exists, else its folder's
	temp   string      // the staged file, once created
	backup string      // the old target's backup name during the commit
	placed bool        // temp has been renamed onto target
}

// Test seams: renameFile lets a test fail one rename of the commit,
// exitProcess lets a test survive the signal handler, and stagedHook runs
// after each output is staged.
var (
	renameFile  = os.Rename
	exitProcess = os.Exit
	stagedHook  func(i int)
)

// errInterrupted says a signal stopped the writing of the outputs.
var errInterrupted = errors.New("interrupted by a signal; no output was changed")

// caughtSignals are the terminatingSignals that writeOutputs catches: all
// but those ignored at start. Notify would stop ignoring SIGHUP or SIGINT
// inherited as ignored (nohup, a script's background job), so that a
// hangup would abort a write that nohup was asked to let finish.
func caughtSignals() []os.Signal {
	var caught []os.Signal
	for _, s := range terminatingSignals {
		if !signal.Ignored(s) {
			caught = append(caught, s)
		}
	}
	return caught
}

// checkOutputs resolves every output path and refuses those that cannot be
// written all-or-none: non-regular files, missing folders, an output that
// is an input, and two outputs that are one file.
func checkOutputs(inputs, paths []string) ([]*outputFile, error) {
	var ins []fs.FileInfo
	var inNames []string
	for _, p := range inputs {
		if fi, err := os.Stat(p); err == nil {
			ins, inNames = append(ins, fi), append(inNames, p)
		}
	}
	files := make([]*outputFile, len(paths))
	for i, p := range paths {
		f, err := resolveOutput(p)
		if err != nil {
			return nil, err
		}
		if f.exists {
			for k, in := range ins {
				if os.SameFile(in, f.info) {
					return nil, fmt.Errorf("%w: output %s is the input file %s; vkdml does not overwrite its input (name another output)", errUsage, p, inNames[k])
				}
			}
		}
		for _, g := range files[:i] {
			same := f.exists == g.exists && os.SameFile(f.info, g.info)
			if same && !f.exists {
				same = filepath.Base(f.target) == filepath.Base(g.target)
			}
			if same && g.path == p {
				return nil, fmt.Errorf("%w: output file %s named twice", errUsage, p)
			}
			if same {
				return nil, fmt.Errorf("%w: output file %s named twice (as %s and %s, the same file)", errUsage, p, g.path, p)
			}
		}
		files[i] = f
	}
	return files, nil
}

// resolveOutput checks one output path: an existing regular file (through
// any symbolic link), or a new name in an existing folder.
func resolveOutput(p string) (*outputFile, error) {
	f := &outputFile{path: p, target: p}
	if p == "" {
		return nil, fmt.Errorf("%w: an output file name is empty", errUsage)
	}
	fi, err := os.Stat(p)
	switch {
	case err == nil:
		if err := regularOutput(p, fi); err != nil {
			return nil, err
		}
		if f.target, err = filepath.EvalSymlinks(p); err != nil {
			return nil, fmt.Errorf("output %s: %w", p, err)
		}
		f.exists, f.info = true, fi
		return f, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("output %s: %w", p, err)
	}
	if li, lerr := os.Lstat(p); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: output %s is a symbolic link to a missing file; name the file itself", errUsage, p)
	}
	dir := filepath.Dir(p)
	di, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("output %s: folder %s: %w", p, dir, unwrapPathError(err))
	}
	if !di.IsDir() {
		return nil, fmt.Errorf("output %s: %s is not a folder", p, dir)
	}
	f.info = di
	return f, nil
}

// regularOutput refuses an existing output that is not a regular file.
func regularOutput(p string, fi fs.FileInfo) error {
	kind := ""
	switch m := fi.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		kind = "a folder"
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	default:
		kind = "not a regular file"
	}
	return fmt.Errorf("%w: output %s is %s; vkdml writes outputs only to regular files, which it replaces all or none (see vkdml run -h)", errUsage, p, kind)
}

// unwrapPathError drops the *fs.PathError's repeated path from err.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// outputWriter is the state a signal handler needs to undo a write.
type outputWriter struct {
	mu        sync.Mutex
	files     []*outputFile
	aborted   bool
	committed bool // every output is in place: a signal no longer undoes it
}

// writeOutputs writes ts[i] to paths[i], all or none (see the comment at
// the top of this file). inputs are the command's input files, which no
// output may be.
func writeOutputs(inputs, paths []string, ts []*tensor.Tensor) error {
	if len(paths) != len(ts) {
		return fmt.Errorf("internal: %d paths for %d tensors", len(paths), len(ts))
	}
	files, err := checkOutputs(inputs, paths)
	if err != nil {
		return err
	}
	w := &outputWriter{files: files}
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	if caught := caughtSignals(); len(caught) > 0 { // Notify with none would catch every signal
		signal.Notify(sigs, caught...)
	}
	go w.onSignal(sigs, done)
	defer func() {
		signal.Stop(sigs)
		close(done)
	}()
	// A panic part-way (run recovers it into an exit status) must not
	// leave staged files or half the outputs replaced either.
	defer func() {
		if r := recover(); r != nil {
			w.mu.Lock()
			if !w.committed {
				w.undoLocked()
			}
			w.mu.Unlock()
			panic(r)
		}
	}()
	for i, f := range files {
		if err := w.stage(f, ts[i]); err != nil {
			w.undo()
			return err
		}
		if stagedHook != nil {
			stagedHook(i)
		}
	}
	return w.commit()
}

// onSignal undoes the write and exits when a signal arrives before done.
func (w *outputWriter) onSignal(sigs chan os.Signal, done chan struct{}) {
	select {
	case s := <-sigs:
		w.mu.Lock()
		committed := w.committed
		if !committed {
			w.undoLocked()
			w.aborted = true
		}
		w.mu.Unlock()
		code := 1
		if n, ok := s.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		if committed {
			fmt.Fprintf(os.Stderr, "vkdml: %v (after the outputs were written)\n", s)
		} else {
			fmt.Fprintf(os.Stderr, "vkdml: %v: the outputs were not written\n", s)
		}
		exitProcess(code)
	case <-done:
	}
}

// stage writes t to a new temporary file beside f's target.
func (w *outputWriter) stage(f *outputFile, t *tensor.Tensor) error {
	w.mu.Lock()
	if w.aborted {
		w.mu.Unlock()
		return errInterrupted
	}
	perm := fs.FileMode(0o666) // minus the umask, by open(2)
	if f.exists {
		perm = f.info.Mode().Perm()
	}
	tf, name, err := createTemp(filepath.Dir(f.target), perm)
	if err == nil {
		f.temp = name
	}
	w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if f.exists { // open(2) applied the umask; a replaced file keeps its mode
		err = tf.Chmod(perm)
	}
	if err == nil {
		err = tensor.WriteNpy(tf, t)
	}
	if err == nil {
		err = tf.Sync()
	}
	if err = errors.Join(err, tf.Close()); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// commit renames every staged file onto its target, keeping a backup of
// each old target until all renames succeeded.
func (w *outputWriter) commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted {
		return errInterrupted
	}
	for _, f := range w.files {
		if err := f.place(); err != nil {
			w.undoLocked()
			return fmt.Errorf("writing %s: %w; no output was changed", f.path, err)
		}
	}
	for _, f := range w.files {
		if f.backup != "" {
			os.Remove(f.backup)
		}
		f.backup, f.placed = "", false
	}
	w.committed = true
	return nil
}

// place moves f's staged file onto its target, backing up the old target.
func (f *outputFile) place() error {
	if f.exists {
		backup, err := reserveName(filepath.Dir(f.target))
		if err != nil {
			return err
		}
		// A hard link keeps the target in place until the rename replaces
		// it atomically; without link support the target moves aside.
		if err := os.Link(f.target, backup); err != nil {
			if err := renameFile(f.target, backup); err != nil {
				return err
			}
		}
		f.backup = backup
	}
	if err := renameFile(f.temp, f.target); err != nil {
		if f.backup != "" {
			if _, serr := os.Lstat(f.target); serr != nil { // moved aside above
				os.Rename(f.backup, f.target)
			} else {
				os.Remove(f.backup)
			}
			f.backup = ""
		}
		return err
	}
	f.temp, f.placed = "", true
	return nil
}

func (w *outputWriter) undo() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.undoLocked()
}

// undoLocked puts every replaced target back and removes what was staged.
func (w *outputWriter) undoLocked() {
	for i := len(w.files) - 1; i >= 0; i-- {
		f := w.files[i]
		if f.placed {
			if f.backup != "" {
				os.Rename(f.backup, f.target)
			} else {
				os.Remove(f.target)
			}
			f.placed = false
		} else if f.backup != "" {
			os.Remove(f.backup)
		}
		f.backup = ""
		if f.temp != "" {
			os.Remove(f.temp)
			f.temp = ""
		}
	}
}

// createTemp creates a new file with a short random name in dir.
func createTemp(dir string, perm fs.FileMode) (*os.File, string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, ".vkdml-"+randomHex()+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, "", err
		}
	}
}

// reserveName returns a name for a backup in dir that does not exist yet.
func reserveName(dir string) (string, error) {
	for try := 0; try < 100; try++ {
		name := filepath.Join(dir, ".vkdml-"+randomHex()+".old")
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no free backup name in %s", dir)
}

func randomHex() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// writeFileAtomic writes data to path through a temporary file beside it
// and a rename: the old file stays whole if anything fails. A new file gets
// 0666 minus the umask.
func writeFileAtomic(path string, data []byte) error {
	f, err := resolveOutput(path)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o666)
	if f.exists {
		perm = f.info.Mode().Perm()
	}
	tf, name, err := createTemp(filepath.Dir(f.target), perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if f.exists {
		err = tf.Chmod(perm)
	}
	if err == nil {
		_, err = tf.Write(data)
	}
	if err = errors.Join(err, tf.Close()); err == nil {
		err = renameFile(name, f.target)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
