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
//
// A case that does not finish within -case-timeout (a D3D12 driver that
// never returns, as lavapipe 25 does on a MAX_POOLING2 with a zero
// dilation under Wine) is recorded as "no answer": the results so far are
// saved, the case's name is written to OUT/resume-after, and the program
// ends with status 3 at once (TerminateProcess: the stuck call cannot be
// abandoned otherwise, and a normal exit may crash on the locks it holds).
// Run it again with -resume to go on after that case (.ci/parity does so
// while resume-after exists).
package main

import (
	"errors"
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
	// Run runs one case; inputs are its input buffers in binding order
	// (parity.Case.InputTensors). An error means the runner itself cannot
	// go on (not a case result).
	Run(c *parity.Case, inputs [][]byte) (*parity.Outcome, error)
	Close()
}

// exitNoAnswer is the exit status after a case ran out of time.
const exitNoAnswer = 3

// resumeFile, in the results folder, names the case that got no answer
// while the run is not finished.
const resumeFile = "resume-after"

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
	caseTimeout := fs.Duration("case-timeout", 30*time.Second, "record a case that takes longer as no answer, save, and exit with status 3 (0: no limit)")
	resume := fs.Bool("resume", false, "keep the results already in -out and run only the cases they lack")
	rig := fs.String("rig", "", "what the D3D12 device runs on, recorded in results.json (e.g. the Vulkan driver under Wine)")
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
	if *resume {
		if old, err := parity.LoadResults(*outDir); err == nil {
			res.Cases = old.Cases
		} else if !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(stderr, "dmlrunner:", err)
			return 1
		}
	}
	resumePath := *outDir + string(os.PathSeparator) + resumeFile
	if err := os.Remove(resumePath); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(stderr, "dmlrunner:", err)
		return 1
	}
	done := map[string]bool{}
	for _, r := range res.Cases {
		done[r.Name] = true
	}
	b.Info(res)
	res.Rig = *rig
	start := time.Now()
	failed, ran := 0, 0
	for i := range corpus.Cases {
		c := &corpus.Cases[i]
		if (*only != "" && !strings.Contains(c.Name, *only)) || done[c.Name] {
			continue
		}
		inputs, err := parity.LoadInputs(*corpusDir, c)
		if err != nil {
			fmt.Fprintln(stderr, "dmlrunner:", err)
			return 1
		}
		stop := parity.Watchdog(*caseTimeout, func() {
			o := &parity.Outcome{NoAnswer: true, Message: fmt.Sprintf("no answer within %v", *caseTimeout)}
			r, _ := parity.WriteOutcome(*outDir, c, o)
			res.Cases = append(res.Cases, r)
			if err := res.Save(*outDir); err != nil {
				fmt.Fprintln(stderr, "dmlrunner:", err)
			}
			if err := os.WriteFile(resumePath, []byte(c.Name+"\n"), 0o644); err != nil {
				fmt.Fprintln(stderr, "dmlrunner:", err)
			}
			fmt.Fprintf(stdout, "dmlrunner: case %s: no answer within %v; %d results saved in %s; run again with -resume for the rest\n", c.Name, *caseTimeout, len(res.Cases), *outDir)
			exitNow(exitNoAnswer)
		})
		o, err := b.Run(c, inputs)
		stop()
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
		ran++
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
	fmt.Fprintf(stdout, "dmlrunner: %d cases in %.1fs on %s (DML feature level %s); %d returned another HRESULT than the corpus expects; %d results in %s\n",
		ran, time.Since(start).Seconds(), res.Adapter, res.FeatureLevel, failed, len(res.Cases), *outDir)
	return 0
}

func stageSuffix(o *parity.Outcome) string {
	if o.Stage == "" {
		return ""
	}
	return " at " + o.Stage
}
