//go:build unix

package main

// The signal tests: they send POSIX signals with kill(2), which Windows
// lacks (there writeOutputs catches only Ctrl+C and console close).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vkdml/vkdml/tensor"
)

// handlerWait is how long a test waits for the signal handler to run.
const handlerWait = 20 * time.Second

// signalTrigger makes a signal arrive; restore, when not nil, undoes what
// it changed once the handler has run. It reports failures with t.Error,
// never t.Fatal: it runs inside writeOutputs.
type signalTrigger func(t *testing.T) (restore func())

// interruptAt runs writeOutputs(nil, paths, ts), calling trigger once
// output at is staged and then waiting up to wait for the signal handler to
// ask for an exit. It returns the exit code asked for (-1 if none) and
// writeOutputs' error.
func interruptAt(t *testing.T, paths []string, ts []*tensor.Tensor, at int, wait time.Duration, trigger signalTrigger) (code int, err error) {
	exited := make(chan int, 1)
	exitProcess = func(code int) { exited <- code }
	stagedHook = func(i int) {
		if i != at {
			return
		}
		restore := trigger(t)
		select {
		case code := <-exited:
			exited <- code
		case <-time.After(wait):
		}
		if restore != nil {
			restore()
		}
	}
	err = writeOutputs(nil, paths, ts)
	exitProcess, stagedHook = os.Exit, nil
	select {
	case code = <-exited:
		return code, err
	default:
		return -1, err
	}
}

// sendToSelf returns a trigger that sends sig to this process, as kill(1)
// or a closing terminal does.
func sendToSelf(sig syscall.Signal) signalTrigger {
	return func(t *testing.T) func() {
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Errorf("kill %v: %v", sig, err)
		}
		return nil
	}
}

// writeToClosedStderr is a trigger that makes fd 2 a pipe whose reader is
// gone and prints to os.Stderr, as a program printing to a vanished
// pipeline does: Go's runtime raises SIGPIPE. Its restore puts the old
// stderr back once the handler has printed its own message.
func writeToClosedStderr(t *testing.T) func() {
	r, w, err := os.Pipe()
	if err != nil {
		t.Error(err)
		return nil
	}
	defer w.Close()
	r.Close()
	saved, err := syscall.Dup(2)
	if err != nil {
		t.Error(err)
		return nil
	}
	if err := dupOnto(int(w.Fd()), 2); err != nil {
		syscall.Close(saved)
		t.Error(err)
		return nil
	}
	fmt.Fprintln(os.Stderr, "progress: staged the first output")
	return func() {
		dupOnto(saved, 2)
		syscall.Close(saved)
	}
}

// destinations makes a folder in which a.npy and b.npy exist (holding
// "old a.npy", "old b.npy") as exist says, and returns their paths and
// the folder's expected contents when nothing was written.
func destinations(t *testing.T, exist [2]bool) (dir string, paths []string, old map[string]string) {
	t.Helper()
	dir, old = t.TempDir(), map[string]string{}
	for i, n := range []string{"a.npy", "b.npy"} {
		p := filepath.Join(dir, n)
		paths = append(paths, p)
		if exist[i] {
			old[n] = "old " + n
			if err := os.WriteFile(p, []byte(old[n]), 0o640); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, paths, old
}

// checkFolder fails unless dir holds exactly the files of want, with those
// contents: no temporary or backup file is left.
func checkFolder(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(want) {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("folder holds %v; want only %d file(s) %v", names, len(want), want)
	}
	for n, w := range want {
		if got, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(got) != w {
			t.Fatalf("%s holds %.40q (%v); want %q", n, got, err, w)
		}
	}
}

// checkWritten fails unless paths hold ts and dir holds nothing else.
func checkWritten(t *testing.T, dir string, paths []string, ts []*tensor.Tensor) {
	t.Helper()
	for i, p := range paths {
		got, err := tensor.ReadNpyFile(p)
		if err != nil || !bytes.Equal(got.Data, ts[i].Data) {
			t.Fatalf("%s was not written: %v", p, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(paths) {
		t.Fatalf("left behind: %v", ents)
	}
}

// signalVariants are the moments and destinations a signal test covers.
var signalVariants = []struct {
	name  string
	at    int     // the output after whose staging the signal comes
	exist [2]bool // which of the two destinations exist before
}{
	{"after the first of two is staged, both existing", 0, [2]bool{true, true}},
	{"after the first of two is staged, both new", 0, [2]bool{false, false}},
	{"after both are staged, first existing, second new", 1, [2]bool{true, false}},
	{"after both are staged, first new, second existing", 1, [2]bool{false, true}},
}

// TestWriteOutputsSignal sends each signal that would end vkdml while the
// outputs are staged: the temporaries must go, the old files stay, no new
// file appear, and the handler ask for exit 128 + the signal.
func TestWriteOutputsSignal(t *testing.T) {
	type trigger struct {
		name string
		sig  syscall.Signal
		fire signalTrigger
	}
	var triggers []trigger
	for _, s := range terminatingSignals {
		sig := s.(syscall.Signal)
		triggers = append(triggers, trigger{signalNames[sig] + " from kill", sig, sendToSelf(sig)})
	}
	triggers = append(triggers, trigger{"SIGPIPE from a write to a closed stderr", syscall.SIGPIPE, writeToClosedStderr})
	for _, tr := range triggers {
		for _, v := range signalVariants {
			t.Run(tr.name+"/"+v.name, func(t *testing.T) {
				if signal.Ignored(tr.sig) {
					t.Skipf("%v is ignored in this test process (nohup?); TestWriteOutputsSignalIgnoredAtStart covers that", tr.sig)
				}
				dir, paths, old := destinations(t, v.exist)
				code, err := interruptAt(t, paths, twoTensors(), v.at, handlerWait, tr.fire)
				if code == -1 {
					t.Fatalf("the signal handler did not run; writeOutputs returned %v", err)
				}
				if !errors.Is(err, errInterrupted) {
					t.Errorf("writeOutputs returned %v; want %v", err, errInterrupted)
				}
				if code != 128+int(tr.sig) {
					t.Errorf("exit code %d; want %d", code, 128+int(tr.sig))
				}
				checkFolder(t, dir, old)
			})
		}
	}
}

// TestWriteOutputsSignalIgnoredAtStart: SIGHUP or SIGINT ignored when the
// process started (nohup, a script's background job) stays ignored, so
// the write finishes instead of being undone. The test runs itself again
// in a process started so, since signal.Ignore here could not be undone
// (Reset, or Notify then Stop, leaves a signal ignored once Ignore ran).
func TestWriteOutputsSignalIgnoredAtStart(t *testing.T) {
	const childEnv = "VKDML_TEST_STARTED_IGNORING_HUP_INT"
	if os.Getenv(childEnv) == "" {
		cmd := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0" "$@"`, os.Args[0],
			"-test.run=^TestWriteOutputsSignalIgnoredAtStart$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestWriteOutputsSignalIgnoredAtStart/SIGINT") {
			t.Fatalf("the test in a process started ignoring SIGHUP and SIGINT: %v\n%s", err, out)
		}
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		t.Run(signalNames[sig], func(t *testing.T) {
			if !signal.Ignored(sig) {
				t.Fatalf("%v is not ignored; the parent test starts this process ignoring it", sig)
			}
			dir, paths, _ := destinations(t, [2]bool{true, false})
			code, err := interruptAt(t, paths, twoTensors(), 0, 200*time.Millisecond, sendToSelf(sig))
			if err != nil || code != -1 {
				t.Fatalf("writeOutputs returned %v, exit code %d; an ignored %v must let it finish", err, code, sig)
			}
			checkWritten(t, dir, paths, twoTensors())
		})
	}
}

// TestWriteOutputsSignalsGoIgnores: signals that Go's runtime ignores by
// default do not stop the write (catching them would make them end vkdml).
func TestWriteOutputsSignalsGoIgnores(t *testing.T) {
	for _, c := range []struct {
		name string
		sig  syscall.Signal
	}{
		{"SIGUSR1", syscall.SIGUSR1}, {"SIGUSR2", syscall.SIGUSR2}, {"SIGALRM", syscall.SIGALRM},
		{"SIGXCPU", syscall.SIGXCPU}, {"SIGXFSZ", syscall.SIGXFSZ}, {"SIGVTALRM", syscall.SIGVTALRM},
		{"SIGPROF", syscall.SIGPROF}, {"SIGIO", syscall.SIGIO}, {"SIGURG", syscall.SIGURG},
		{"SIGWINCH", syscall.SIGWINCH}, {"SIGCHLD", syscall.SIGCHLD},
	} {
		sig := c.sig
		t.Run(c.name, func(t *testing.T) {
			dir, paths, _ := destinations(t, [2]bool{true, false})
			code, err := interruptAt(t, paths, twoTensors(), 0, 200*time.Millisecond, sendToSelf(sig))
			if err != nil || code != -1 {
				t.Fatalf("writeOutputs returned %v, exit code %d; %v must not stop it", err, code, sig)
			}
			checkWritten(t, dir, paths, twoTensors())
		})
	}
}

// signalNames spells the caught signals as the help text does (Linux's
// SIGSTKFLT is added in output_signal_linux_test.go).
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGABRT: "SIGABRT", syscall.SIGPIPE: "SIGPIPE", syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGSEGV: "SIGSEGV", syscall.SIGSYS: "SIGSYS",
}

// TestOutputHelpNamesSignals: `vkdml run -h` names every caught signal.
func TestOutputHelpNamesSignals(t *testing.T) {
	for _, s := range terminatingSignals {
		name, ok := signalNames[s.(syscall.Signal)]
		if !ok {
			t.Errorf("signal %v has no name in signalNames", s)
			continue
		}
		if !strings.Contains(outputHelp, name) {
			t.Errorf("outputHelp does not name %s, which writeOutputs catches", name)
		}
	}
}

// TestWriteOutputsSignalAfterCommit: a signal that arrives once every
// output is in place undoes nothing, and still asks for 128 + the signal.
func TestWriteOutputsSignalAfterCommit(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE} {
		dir, a, _ := outputDir(t)
		newB := filepath.Join(dir, "new.npy")
		files, err := checkOutputs(nil, []string{a, newB})
		if err != nil {
			t.Fatal(err)
		}
		w := &outputWriter{files: files}
		for i, f := range files {
			if err := w.stage(f, twoTensors()[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.commit(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan int, 1)
		exitProcess = func(code int) { exited <- code }
		sigs, done := make(chan os.Signal, 1), make(chan struct{})
		sigs <- sig
		w.onSignal(sigs, done)
		exitProcess = os.Exit
		if code := <-exited; code != 128+int(sig) {
			t.Errorf("%v: exit code %d; want %d", sig, code, 128+int(sig))
		}
		for i, p := range []string{a, newB} {
			got, err := tensor.ReadNpyFile(p)
			if err != nil || !bytes.Equal(got.Data, twoTensors()[i].Data) {
				t.Fatalf("%v: %s was undone after the commit: %v", sig, p, err)
			}
		}
	}
}
