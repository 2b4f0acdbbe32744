package main

// vkdml parity --live: DirectML.dll and vkdml in one process, case by case.
// The DirectML side (liveDirectML, openLive) is Windows-only
// (parity_live_windows.go); the loop, the comparison and the saved
// differences are here.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/operators"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/gen"
	"github.com/vkdml/vkdml/internal/parity/vk"
	"github.com/vkdml/vkdml/tensor"
)

// liveOptions are parity --live's flags.
type liveOptions struct {
	corpus      string // --corpus, or "" with random
	random      int
	seed        int64
	out         string
	adapter     string // --adapter: DXGI adapter index or name substring
	dll         string
	dev         dml.DeviceOptions
	caseTimeout time.Duration
	verbose     bool
	// skipNoAnswer: DirectML is not given the corpus cases its goldens
	// record as no answer (they hang the driver, as the zero dilation does
	// under Wine); each is compared as a no answer, which fails the run
	// unless known-differences.json explains it.
	skipNoAnswer bool
}

// liveDirectML is DirectML's side of a live comparison.
type liveDirectML interface {
	// Info fills the DirectML fields of the results: producer, adapter,
	// feature level and type support.
	Info(r *parity.Results)
	// Run runs one case on its input buffers; an error means the DirectML
	// plumbing itself failed, not the case.
	Run(c *parity.Case, inputs [][]byte) (*parity.Outcome, error)
	Close()
}

// liveRig is both devices and the header lines that say what they are and
// how they were paired.
type liveRig struct {
	dml    liveDirectML
	vk     *dml.Device
	header []string
	// uncapped is vkdml's device without --random's forced windows, for
	// the cases they are too small for (runUncapped).
	uncapped *dml.Device
}

// runUncapped runs case c on vkdml's device opened without the forced
// binding windows and allocation parts (opened on first use, closed with
// rig.vk's).
func (r *liveRig) runUncapped(opts dml.DeviceOptions, c *parity.Case, inputs [][]byte) (*parity.Outcome, error) {
	if r.uncapped == nil {
		opts.BindingWindowCap, opts.MaxAllocation = 0, 0
		opts.Device = strconv.Itoa(r.vk.GPU().Info.Index)
		d, err := createDevice(opts)
		if err != nil {
			return nil, err
		}
		r.uncapped = d
	}
	return vk.RunBuffers(r.uncapped, c, inputs)
}

// openLive opens both devices; it is set per OS.
var openLive func(o *liveOptions) (*liveRig, error)

// exitLive ends the process after a case got no answer (the stuck call
// cannot be abandoned); set per OS.
var exitLive = os.Exit

// liveCases is the cases of a live run with their input buffers.
type liveCases struct {
	corpus *parity.Corpus
	inputs func(c *parity.Case) ([][]byte, error)
	known  map[string]string
	source string
	// noAnswer holds, with --skip-no-answer, the message of each case not
	// given to DirectML.
	noAnswer map[string]string
}

// loadLiveCases reads --corpus, or draws --random cases of the types the
// DirectML device supports.
func loadLiveCases(o *liveOptions, typeSupport map[string]bool) (*liveCases, error) {
	if o.random > 0 {
		keep := func(c *parity.Case) bool {
			for _, t := range []*parity.Tensor{&c.Input, c.Indices, &c.Output, c.OutputIndices} {
				if t != nil && !typeSupport[t.DataType] {
					return false
				}
			}
			return true
		}
		set, err := gen.Random(o.seed, o.random, keep)
		if err != nil {
			return nil, err
		}
		lc := &liveCases{corpus: &set.Corpus, known: map[string]string{},
			source: fmt.Sprintf("%d random cases, seed %d (--random %d --seed %d)", o.random, o.seed, o.random, o.seed)}
		lc.inputs = func(c *parity.Case) ([][]byte, error) {
			in, idx, err := set.Input(c)
			if err != nil {
				return nil, err
			}
			bufs := [][]byte{in.Data[:c.Input.TotalTensorSizeInBytes]}
			if idx != nil {
				bufs = append(bufs, idx.Data[:c.Indices.TotalTensorSizeInBytes])
			}
			return bufs, nil
		}
		return lc, nil
	}
	corpus, err := parity.LoadCorpus(o.corpus)
	if err != nil {
		return nil, err
	}
	known, err := parity.LoadKnown(o.corpus)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	lc := &liveCases{corpus: corpus, known: known, source: "the corpus in " + o.corpus, noAnswer: map[string]string{},
		inputs: func(c *parity.Case) ([][]byte, error) { return parity.LoadInputs(o.corpus, c) }}
	if o.skipNoAnswer {
		goldenDir := filepath.Join(o.corpus, parity.GoldenDir)
		res, err := parity.LoadResults(goldenDir)
		if errors.Is(err, os.ErrNotExist) {
			// A corpus without goldens (a fresh one, or live differences
			// saved elsewhere): no case is recorded as no answer.
			lc.source += " (no goldens: every case goes to DirectML)"
			return lc, nil
		}
		if err != nil {
			return nil, fmt.Errorf("--skip-no-answer reads the corpus's goldens: %w", err)
		}
		for _, r := range res.Cases {
			if r.NoAnswer {
				lc.noAnswer[r.Name] = fmt.Sprintf("not run (--skip-no-answer): %s records no answer (%s)", goldenDir, r.Message)
			}
		}
		if n := len(lc.noAnswer); n > 0 {
			lc.source += fmt.Sprintf(", less %d cases its goldens record as no answer", n)
		}
	}
	return lc, nil
}

// liveDifferences saves each differing case as a corpus under dir
// (corpus.json, inputs/) with DirectML's outcome as its golden (golden/),
// so that `vkdml parity --corpus DIR` replays it against vkdml and
// `dmlrunner -corpus DIR` against DirectML.
type liveDifferences struct {
	dir    string
	corpus parity.Corpus
	golden parity.Results
}

func (d *liveDifferences) add(c *parity.Case, inputs [][]byte, golden *parity.Outcome) error {
	if err := os.MkdirAll(filepath.Join(d.dir, parity.InputsDir), 0o755); err != nil {
		return err
	}
	goldenDir := filepath.Join(d.dir, parity.GoldenDir)
	if err := os.MkdirAll(goldenDir, 0o755); err != nil {
		return err
	}
	files := []string{parity.InputFile(c.Name), parity.IndicesFile(c.Name)}
	for i, t := range c.InputTensors() {
		dt, err := t.Desc()
		if err != nil {
			return err
		}
		if err := tensor.WriteNpyFile(filepath.Join(d.dir, files[i]), parity.BufferNpy(dt.DataType, inputs[i])); err != nil {
			return err
		}
	}
	r, err := parity.WriteOutcome(goldenDir, c, golden)
	if err != nil {
		return err
	}
	d.corpus.Cases = append(d.corpus.Cases, *c)
	d.golden.Cases = append(d.golden.Cases, r)
	if err := d.golden.Save(goldenDir); err != nil {
		return err
	}
	return d.corpus.Save(d.dir)
}

// runParityLive compares DirectML and vkdml case by case in this process.
func runParityLive(o *liveOptions, stdout, stderr io.Writer) error {
	rig, err := openLive(o)
	if err != nil {
		return err
	}
	defer rig.vk.Close()
	defer rig.dml.Close()
	defer func() {
		if rig.uncapped != nil {
			rig.uncapped.Close()
		}
	}()
	res := &parity.Results{}
	rig.dml.Info(res)
	cases, err := loadLiveCases(o, res.TypeSupport)
	if err != nil {
		return err
	}
	for _, h := range rig.header {
		fmt.Fprintln(stdout, h)
	}
	fmt.Fprintf(stdout, "DirectML feature level %s; cases: %s\n", res.FeatureLevel, cases.source)
	if o.dev.BindingWindowCap > 0 {
		fmt.Fprintf(stdout, "vkdml binds at most %d MiB of a tensor per dispatch and allocates buffers in parts of at most %d MiB (the large cases' tensors take the windowed and split paths)\n",
			o.dev.BindingWindowCap>>20, o.dev.MaxAllocation>>20)
	}
	fmt.Fprintln(stdout)
	diffs := &liveDifferences{dir: o.out, golden: parity.Results{Producer: res.Producer + " (vkdml parity --live)", Adapter: res.Adapter,
		FeatureLevel: res.FeatureLevel, TypeSupport: res.TypeSupport}}
	diffs.corpus.Comment = "cases where vkdml differed from DirectML in `vkdml parity --live` (" + cases.source + "); golden/ holds DirectML's results"
	diffs.corpus.Seed = cases.corpus.Seed
	rep := &parity.Report{TypeSupport: res.TypeSupport, Source: operators.Source}
	start := time.Now()
	for i := range cases.corpus.Cases {
		c := &cases.corpus.Cases[i]
		inputs, err := cases.inputs(c)
		if err != nil {
			return err
		}
		vkOut, err := vk.RunBuffers(rig.vk, c, inputs)
		if err != nil {
			return err
		}
		if vkOut.HR == hresult.DXGI_ERROR_UNSUPPORTED && o.dev.BindingWindowCap > 0 {
			// The forced windows are more than this case's layout can be
			// covered with (a block whose elements lie further apart than
			// a window): it runs as the device itself allows.
			if vkOut, err = rig.runUncapped(o.dev, c, inputs); err != nil {
				return err
			}
			if o.verbose {
				fmt.Fprintf(stderr, "%s: run without the forced windows\n", c.Name)
			}
		}
		if msg, skip := cases.noAnswer[c.Name]; skip {
			row := rep.Add(c, &parity.Outcome{NoAnswer: true, Message: msg}, vkOut, cases.known)
			if o.verbose {
				fmt.Fprintf(stderr, "%s: %s (not run)\n", c.Name, row.Verdict)
			}
			continue
		}
		stop := parity.Watchdog(o.caseTimeout, func() {
			fmt.Fprintf(stdout, "parity --live: DirectML gave no answer to case %s within %v; %d cases compared:\n", c.Name, o.caseTimeout, len(rep.Rows))
			rep.Print(stdout)
			if o.out != "" {
				diffs.add(c, inputs, &parity.Outcome{NoAnswer: true, Message: fmt.Sprintf("no answer within %v", o.caseTimeout)})
			}
			exitLive(exitNoAnswer)
		})
		dmlOut, err := rig.dml.Run(c, inputs)
		stop()
		if err != nil {
			return fmt.Errorf("DirectML, case %s: %w", c.Name, err)
		}
		row := rep.AddRun(c, inputs, dmlOut, vkOut, cases.known)
		if o.verbose {
			fmt.Fprintf(stderr, "%s: %s\n", c.Name, row.Verdict)
		}
		if (row.Verdict == parity.Differ || row.Verdict == parity.OutsideBound) && o.out != "" {
			if err := diffs.add(c, inputs, dmlOut); err != nil {
				return err
			}
		}
	}
	rep.Print(stdout)
	fmt.Fprintf(stdout, "parity --live: %d cases in %.1fs\n", len(rep.Rows), time.Since(start).Seconds())
	if len(diffs.corpus.Cases) > 0 {
		fmt.Fprintf(stdout, "parity --live: %d differing cases saved in %s (replay: vkdml parity --corpus %s)\n", len(diffs.corpus.Cases), o.out, o.out)
	}
	if rep.Failed() {
		return errParity
	}
	return nil
}

// exitNoAnswer is the exit status after DirectML gave a case no answer.
const exitNoAnswer = 3
