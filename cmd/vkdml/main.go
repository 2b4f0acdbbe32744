// Command vkdml runs DirectML operators on a Vulkan device.
//
// Usage:
//
//	vkdml demo                 run what vkdml can do on the default device
//	vkdml run OP [flags] IN.npy OUT.npy
//	                           run one operator on NumPy files
//	vkdml bench --op OP --shape A,B [...]
//	                           time an operator against the copy kernel
//	vkdml conformance          run ONNX's node tests of the operators vkdml maps
//	vkdml parity --corpus DIR  compare vkdml with DirectML's recorded results
//	vkdml devices [--json]     list Vulkan devices, their features and limits
//	vkdml version, --version   print the version
//
// Errors go to stderr with exit status 1 (2 for bad flags or arguments);
// -h or --help prints the usage on stdout with status 0. Every --json
// output is documented in docs/json.md, as are bench's --format csv and
// --format benchstat.
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

	version "github.com/vkdml/vkdml"
	"github.com/vkdml/vkdml/internal/operators"
)

// vkdmlVersion is the version the command reports: the release number from
// the repository's VERSION file, with the build metadata the Makefile links
// in (-X github.com/vkdml/vkdml.build=...), or else that of the build
// info's VCS stamp.
func vkdmlVersion() string {
	if v := version.Version(); v != version.Release() {
		return v
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version.Release()
	}
	return version.WithBuild(buildMetadata(bi))
}

// buildMetadata is a build's commit from its VCS stamp, as the Makefile
// spells it (g0123456789ab, .dirty when the tree had changes), or "" when
// the build has none (go install module@version, -buildvcs=false).
func buildMetadata(bi *debug.BuildInfo) string {
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		return "g" + rev + ".dirty"
	}
	return "g" + rev
}

// errUsage marks errors in flags or arguments: exit status 2.
var errUsage = operators.ErrUsage

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"demo", "run vkdml's examples on the default device (the main job)", runDemo},
		{"run", "run one operator on .npy files: vkdml run OP [flags] IN.npy OUT.npy", runRun},
		{"bench", "time an operator against the copy kernel: vkdml bench --op OP --shape A,B [--kernel K|all] [--plot F.png]", runBench},
		{"plan", "print an operator's plan and its facts, for this device or a profile: vkdml plan --op OP --shape A,B [--profile h100] [--json]", runPlan},
		{"conformance", "run ONNX's node tests of the operators vkdml maps (ArgMax, MaxPool, Reduce*, TopK, ...): vkdml conformance [--data DIR] [--json]", runConformance},
		{"parity", "compare vkdml with DirectML's results on the parity corpus: vkdml parity [--corpus DIR] [--golden DIR] [--json]", runParity},
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
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
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
				fmt.Fprintf(stderr, "vkdml %s: %s\n", c.name, errorText(c.name, strings.TrimPrefix(err.Error(), "usage: ")))
				return 2
			default:
				fmt.Fprintf(stderr, "vkdml %s: %s\n", c.name, errorText(c.name, err.Error()))
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "vkdml: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

// parseFlagsOnly parses a command's flags as parseInterleaved does, for a
// command that takes no positional arguments.
func parseFlagsOnly(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	pos, err := parseInterleaved(fs, args, stdout)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	return err
}

// parseInterleaved parses flags that may come before or after positional
// arguments ("vkdml run argmax IN.npy OUT.npy --axes 1"), returning the
// positional ones. "--" ends flag parsing. -h, -help and --help print the
// usage on stdout (the command then exits 0: help asked for is output, and
// `vkdml run argmax -h | less` should work); after a bad flag the usage goes
// to stderr with the error.
func parseInterleaved(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package would print it before we know where
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				stderr := fs.Output()
				fs.SetOutput(stdout)
				usage()
				fs.SetOutput(stderr)
				return nil, err
			}
			usage()
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

// newFlagSet is the flag set of `vkdml SYNOPSIS`, reporting errors on
// stderr. A usage function set on it must write to fs.Output(), which
// parseInterleaved points at stdout for -h.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: vkdml %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "version", stderr)
	if err := parseFlagsOnly(fs, args, stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "vkdml", vkdmlVersion())
	return nil
}

// asciiFor spells the non-ASCII characters of messages in ASCII: error
// text must read the same on any terminal or log (a UTF-8 middle dot or
// non-breaking space shows as "Â·" or "Â " under Latin-1).
var asciiFor = strings.NewReplacer(
	"\u00a0", " ", "\u202f", " ", "\u2009", " ", "\u00b7", "*", "\u00d7", "x", "\u2212", "-", "\u2013", "-", "\u2014", "-",
	"\u2264", "<=", "\u2265", ">=", "\u2260", "!=", "\u00b1", "+/-", "\u00b5", "u", "\u03a3", "sum", "\u03a0", "prod",
	"\u2026", "...", "\u2018", "'", "\u2019", "'", "\u201c", "\"", "\u201d", "\"", "\u2192", "->", "\u221e", "inf",
)

// errorText is an error message as the command prints it: one "NAME:"
// prefix (the command adds its own, so a repeated one goes) in ASCII.
func errorText(name, msg string) string {
	for _, p := range []string{name + ": ", "vkdml " + name + ": ", "vkdml: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return asciiFor.Replace(msg)
}
