// Command dmlrunner runs vkdml's parity corpus through the real DirectML:
// it loads d3d12.dll and DirectML.dll, creates a D3D12 device on the
// default adapter and a DML device on it, and for each case creates,
// compiles, initializes, binds, records, executes and reads back the
// operator, writing the outputs (whole buffers, as .npy) or the failing
// HRESULT into the output directory with a results.json that `vkdml parity`
// and tests/parity compare vkdml against.
//
// Build it for Windows (no cgo):
//
//	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o dmlrunner.exe ./parity/cmd/dmlrunner
//
// and run it next to DirectML.dll (any DirectML ≥ 1.13 redistributable;
// the goldens in tests/parity come from DirectML 1.15.4 under Wine, see
// .ci/parity (make parity)):
//
//	dmlrunner.exe -corpus tests\parity -out tests\parity\golden
//
// On Windows with real hardware this regenerates the goldens for that GPU.
// On other systems the program only says that it needs Windows.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/vkdml/vkdml/internal/parity"
)

// backend is DirectML on Windows; elsewhere newBackend fails.
type backend interface {
	// Info fills the device fields of the results.
	Info(r *parity.Results)
	// Run runs one case; input is the input buffer. An error means the
	// runner itself cannot go on (not a case result).
	Run(c *parity.Case, input []byte) (*parity.Outcome, error)
	Close()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dmlrunner", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpusDir := fs.String("corpus", "tests/parity", "corpus directory (with corpus.json and inputs/)")
	outDir := fs.String("out", "", "results directory (default CORPUS/golden)")
	only := fs.String("only", "", "run only the cases whose name contains this")
	dll := fs.String("dml", "DirectML.dll", "DirectML.dll to load (name or path)")
	debug := fs.Bool("debug", false, "DML_CREATE_DEVICE_FLAG_DEBUG (needs DirectML.Debug.dll)")
	verbose := fs.Bool("v", false, "print one line per case")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *outDir == "" {
		*outDir = *corpusDir + string(os.PathSeparator) + parity.GoldenDir
	}
	corpus, err := parity.LoadCorpus(*corpusDir)
	if err != nil {
		fmt.Fprintln(stderr, "dmlrunner:", err)
		return 1
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		fmt.Fprintln(stderr, "dmlrunner:", err)
		return 1
	}
	b, err := newBackend(*dll, *debug)
	if err != nil {
		fmt.Fprintln(stderr, "dmlrunner:", err)
		return 1
	}
	defer b.Close()
	res := &parity.Results{Producer: "dmlrunner"}
	b.Info(res)
	start := time.Now()
	failed := 0
	for i := range corpus.Cases {
		c := &corpus.Cases[i]
		if *only != "" && !strings.Contains(c.Name, *only) {
			continue
		}
		input, err := parity.LoadInput(*corpusDir, c)
		if err != nil {
			fmt.Fprintln(stderr, "dmlrunner:", err)
			return 1
		}
		o, err := b.Run(c, input)
		if err != nil {
			fmt.Fprintf(stderr, "dmlrunner: case %s: %v\n", c.Name, err)
			return 1
		}
		r, err := parity.WriteOutcome(*outDir, c, o)
		if err != nil {
			fmt.Fprintln(stderr, "dmlrunner:", err)
			return 1
		}
		res.Cases = append(res.Cases, r)
		if want, _ := parity.ParseHRESULT(c.Expect); want != o.HR {
			failed++
		}
		if *verbose {
			fmt.Fprintf(stdout, "%-50s %s%s\n", c.Name, o.HR, stageSuffix(o))
		}
	}
	if *only == "" {
		if err := parity.RemoveStaleOutputs(*outDir, res); err != nil {
			fmt.Fprintln(stderr, "dmlrunner:", err)
			return 1
		}
	}
	if err := res.Save(*outDir); err != nil {
		fmt.Fprintln(stderr, "dmlrunner:", err)
		return 1
	}
	fmt.Fprintf(stdout, "dmlrunner: %d cases in %.1fs on %s (DML feature level %s); %d returned another HRESULT than the corpus expects; results in %s\n",
		len(res.Cases), time.Since(start).Seconds(), res.Adapter, res.FeatureLevel, failed, *outDir)
	return 0
}

func stageSuffix(o *parity.Outcome) string {
	if o.Stage == "" {
		return ""
	}
	return " at " + o.Stage
}
