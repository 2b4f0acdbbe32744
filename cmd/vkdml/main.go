// Command vkdml runs DirectML operators on a Vulkan device.
//
// Usage:
//
//	vkdml demo                 run what vkdml can do on the default device
//	vkdml run OP [flags] IN.npy OUT.npy
//	                           run one operator on NumPy files
//	vkdml devices [--json]     list Vulkan devices, their features and limits
//	vkdml version              print the version
//
// The device is chosen as the library chooses it: $VKDML_DEVICE (an index or
// a name substring) or --device, else discrete, integrated, virtual, CPU.
// $VK_DRIVER_FILES / $VK_ICD_FILENAMES select Vulkan drivers as usual.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// version is set at link time by the Makefile; "dev" otherwise.
var version = "dev"

// errUsage marks errors that should print the command's usage.
var errUsage = errors.New("usage")

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"demo", "run vkdml's examples on the default device (the main job)", runDemo},
		{"run", "run one operator on .npy files: vkdml run OP [flags] IN.npy OUT.npy", runRun},
		{"bench", "time operators against the copy kernel: vkdml bench --op OP --shape A,B [...]", runBench},
		{"conformance", "run ONNX's node tests for ArgMax, ArgMin and MaxPool: vkdml conformance [--data DIR] [--json]", runConformance},
		{"parity", "compare vkdml with DirectML's results on the parity corpus: vkdml parity [--corpus DIR] [--golden DIR]", runParity},
		{"devices", "list Vulkan devices with their features, limits and the feature level vkdml honours", runDevices},
		{"version", "print vkdml's version", runVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "vkdml: DirectML operators on Vulkan\n\nUsage:\n  vkdml <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'vkdml <command> -h' for a command's flags.\n")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit, for tests. A panic becomes an error
// message: no Go trace reaches a user (VKDML_TRACEBACK=1 shows it).
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "vkdml: internal error: %v\n", r)
			if os.Getenv("VKDML_TRACEBACK") == "1" {
				stderr.Write(debug.Stack())
			}
			code = 2
		}
	}()
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "vkdml %s: %v\n", c.name, strings.TrimPrefix(err.Error(), "usage: "))
				return 2
			default:
				fmt.Fprintf(stderr, "vkdml %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "vkdml: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// parseInterleaved parses flags that may come before or after positional
// arguments ("vkdml run argmax IN.npy OUT.npy --axes 1"), returning the
// positional ones. "--" ends flag parsing.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: vkdml %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "version", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	fmt.Fprintln(stdout, "vkdml", version)
	return nil
}
