package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/gen"
	"github.com/vkdml/vkdml/internal/parity/vk"
)

// errParity says that the comparison found differences (the table says
// which); the exit status is 1.
var errParity = errors.New("vkdml differs from DirectML")

// defaultCorpus is where the corpus lives in the repository.
const defaultCorpus = "tests/parity"

// parityReport is `vkdml parity --json` (docs/json.md).
type parityReport struct {
	SchemaVersion  int    `json:"schema_version"`
	VkdmlVersion   string `json:"vkdml_version"`
	Device         string `json:"device"`
	Driver         string `json:"driver"`
	Corpus         string `json:"corpus"`
	Golden         string `json:"golden"`
	GoldenProducer string `json:"golden_producer"`
	GoldenAdapter  string `json:"golden_adapter"`
	GoldenRig      string `json:"golden_rig,omitempty"`
	Equal          int    `json:"equal"`
	// WithinBound: REDUCE float cases within docs/semantics.md rule 44's
	// bound of DirectML; OutsideBound: beyond it, counted in Differ too.
	WithinBound    int  `json:"within_bound"`
	Differ         int  `json:"differ"`
	OutsideBound   int  `json:"differ_outside_bound"`
	RejectedByBoth int  `json:"rejected_by_both"`
	Known          int  `json:"known"`
	NoGolden       int  `json:"no_golden"`
	Skipped        int  `json:"skipped"`
	NoAnswer       int  `json:"no_answer"`
	Passed         bool `json:"passed"`
	// SixteenBit counts the FLOAT16, INT16 and UINT16 cases; Groups counts
	// per input data type and operator family.
	SixteenBit parity.Counts `json:"sixteen_bit"`
	Groups     []parityGroup `json:"groups"`
	Cases      []parityRow   `json:"cases"`
}

type parityGroup struct {
	Type   string `json:"type"`
	Family string `json:"family"`
	parity.Counts
}

type parityRow struct {
	Case     string `json:"case"`
	DirectML string `json:"directml"`
	VKDML    string `json:"vkdml"`
	Verdict  string `json:"verdict"`
	Detail   string `json:"detail,omitempty"`
	// Rule explains a known difference; Outputs and Differences are the
	// comparison as records (parity.Row).
	Rule        string                    `json:"rule,omitempty"`
	Outputs     []parity.OutputComparison `json:"outputs,omitempty"`
	Differences []parity.Difference       `json:"differences,omitempty"`
}

// findCorpus returns --corpus, or the repository's tests/parity found from
// the working folder or one of its parents, or a clear error.
func findCorpus(flagValue string) (string, error) {
	if flagValue != "" {
		if _, err := os.Stat(filepath.Join(flagValue, parity.ManifestFile)); err != nil {
			return "", fmt.Errorf("--corpus %s: no %s there (%v); name the folder that holds corpus.json, inputs/ and golden/ (the repository's tests/parity)", flagValue, parity.ManifestFile, unwrapPathError(err))
		}
		return flagValue, nil
	}
	dir, _ := os.Getwd()
	for dir != "" {
		p := filepath.Join(dir, defaultCorpus)
		if _, err := os.Stat(filepath.Join(p, parity.ManifestFile)); err == nil {
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return "", fmt.Errorf("%w: no parity corpus found (%s/%s in this folder or a parent); run inside the vkdml repository or give --corpus DIR, the folder holding corpus.json", errUsage, defaultCorpus, parity.ManifestFile)
}

// runParity runs the parity corpus through vkdml and compares every case
// with the goldens DirectML produced (parity/cmd/dmlrunner, on Windows or
// under Wine): a table of case, DirectML, vkdml, verdict, then the summary
// line `parity: N equal, M differ, K rejected by both`.
func runParity(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("parity", "parity [--corpus DIR] [--golden DIR] [--json] [--device SEL] [--debug]\n       vkdml parity --case CASE.json [--json] [--device SEL] [--debug]\n       vkdml parity --live [--corpus DIR | --random N [--seed S]] [--out DIR] [--adapter SEL] [--device SEL] [--dml DLL] [--skip-no-answer] (Windows)", stderr)
	corpusFlag := fs.String("corpus", "", "corpus folder: corpus.json, inputs/, known-differences.json (default: the repository's tests/parity, found from the working folder up)")
	golden := fs.String("golden", "", "DirectML's results (results.json and .npy outputs; default CORPUS/golden)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON (docs/json.md; docs/schema/parity.schema.json, with --case parity-case.schema.json)")
	caseFile := fs.String("case", "", "compare one case: CASE.json holds desc (DirectML's names), inputs and expected (.npy files relative to it) or hresult")
	live := fs.Bool("live", false, "Windows: run each case through DirectML.dll and vkdml in this process and compare them (no goldens)")
	random := fs.Int("random", 0, "with --live: N random cases of the corpus generator's families instead of the corpus")
	seed := fs.Int64("seed", 0, "with --random: the seed (default: from the clock, printed)")
	out := fs.String("out", "", "with --live: save each differing case here as a corpus with DirectML's result as its golden")
	adapter := fs.String("adapter", "", "with --live: the D3D12 (DXGI) adapter, index or name substring (default: the one whose LUID matches the Vulkan device)")
	dll := fs.String("dml", "DirectML.dll", "with --live: DirectML.dll to load (name or path)")
	caseTimeout := fs.Duration("case-timeout", 60*time.Second, "with --live: a DirectML case that takes longer ends the run (exit status 3)")
	verbose := fs.Bool("v", false, "with --live: one line per case on stderr as it finishes")
	skipNoAnswer := fs.Bool("skip-no-answer", false, "with --live and a corpus: do not give DirectML the cases its goldens record as no answer (compared as no answer; they fail unless known-differences.json explains them)")
	devOpts := deviceFlags(fs)
	if err := parseFlagsOnly(fs, args, stdout); err != nil {
		return err
	}
	if *caseFile != "" {
		for _, f := range []string{"corpus", "golden", "live"} {
			if flagSet(fs, f) {
				return fmt.Errorf("%w: --case compares one case; --%s goes without it", errUsage, f)
			}
		}
	}
	if !*live {
		for _, f := range []string{"random", "seed", "out", "adapter", "dml", "case-timeout", "v", "skip-no-answer"} {
			if flagSet(fs, f) {
				return fmt.Errorf("%w: --%s goes with --live", errUsage, f)
			}
		}
	} else {
		if *asJSON || *golden != "" {
			return fmt.Errorf("%w: --live compares with DirectML directly; --json and --golden go without it", errUsage)
		}
		if *random < 0 || (*random > 0 && *corpusFlag != "") {
			return fmt.Errorf("%w: --random N (N > 0) replaces --corpus", errUsage)
		}
		if flagSet(fs, "seed") && *random == 0 {
			return fmt.Errorf("%w: --seed goes with --random", errUsage)
		}
		if *skipNoAnswer && *random > 0 {
			return fmt.Errorf("%w: --skip-no-answer goes with a corpus, not --random", errUsage)
		}
		o := &liveOptions{random: *random, seed: *seed, out: *out, adapter: *adapter, dll: *dll, dev: devOpts(), caseTimeout: *caseTimeout,
			verbose: *verbose, skipNoAnswer: *skipNoAnswer}
		if *random == 0 {
			corpus, err := findCorpus(*corpusFlag)
			if err != nil {
				return err
			}
			o.corpus = corpus
		} else {
			if !flagSet(fs, "seed") {
				o.seed = time.Now().UnixNano() % 1e9
			}
			// The large random cases' tensors exceed these, so that
			// vkdml's windowed and split paths run on any device; the
			// caps are never above the device's own limits.
			o.dev.BindingWindowCap, o.dev.MaxAllocation = gen.LiveBindingWindow, gen.LiveMaxAllocation
		}
		return runParityLive(o, stdout, stderr)
	}
	if *caseFile != "" {
		return runParityCase(*caseFile, *asJSON, devOpts(), stdout)
	}
	corpus, err := findCorpus(*corpusFlag)
	if err != nil {
		return err
	}
	if *golden == "" {
		*golden = filepath.Join(corpus, parity.GoldenDir)
	}
	// Check the files before opening a device.
	if _, err := parity.LoadCorpus(corpus); err != nil {
		return err
	}
	res, err := parity.LoadResults(*golden)
	if err != nil {
		return err
	}
	d, err := createDevice(devOpts())
	if err != nil {
		return err
	}
	defer d.Close()
	info := d.GPU().Info
	rep, err := vk.Compare(d, corpus, *golden, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		out := parityReport{SchemaVersion: jsonSchemaVersion, VkdmlVersion: vkdmlVersion(), Device: info.Name, Driver: info.DriverName + " " + info.DriverInfo,
			Corpus: corpus, Golden: *golden, GoldenProducer: res.Producer, GoldenAdapter: res.Adapter,
			GoldenRig: res.Rig,
			Equal:     rep.Equal, WithinBound: rep.WithinBound, Differ: rep.Differ, OutsideBound: rep.OutsideBound, RejectedByBoth: rep.RejectedByBoth, Known: rep.Known, NoGolden: rep.None, Skipped: rep.Skipped,
			NoAnswer: rep.NoAnswer, Passed: !rep.Failed(), SixteenBit: rep.Sixteen, Groups: []parityGroup{}, Cases: []parityRow{}}
		for _, k := range rep.GroupKeys() {
			out.Groups = append(out.Groups, parityGroup{k.Type, k.Family, *rep.Groups[k]})
		}
		for _, r := range rep.Rows {
			out.Cases = append(out.Cases, parityRow{Case: r.Case, DirectML: r.DirectML, VKDML: r.VKDML, Verdict: r.Verdict, Detail: r.Detail,
				Rule: r.Rule, Outputs: r.Outputs, Differences: r.Differences})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "vkdml on %s (%s); DirectML results from %s, %s, feature level %s\n", info.Name, info.DriverInfo, res.Producer, res.Adapter, res.FeatureLevel)
		if res.Rig != "" {
			fmt.Fprintf(stdout, "DirectML ran on: %s\n", res.Rig)
		}
		fmt.Fprintln(stdout)
		rep.Print(stdout)
	}
	if rep.Failed() {
		return errParity
	}
	return nil
}

// flagSet reports whether flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// parityCaseReport is `vkdml parity --case --json`
// (docs/schema/parity-case.schema.json).
type parityCaseReport struct {
	SchemaVersion int    `json:"schema_version"`
	VkdmlVersion  string `json:"vkdml_version"`
	Device        string `json:"device"`
	Driver        string `json:"driver"`
	parity.CaseResult
}

// runParityCase compares one case file's expected outputs with vkdml's:
// the verdict, the rule that explains a difference, and each listed
// difference with its coordinates, both values, its input window or
// block and hints. The exit status is 1 unless the verdict passes (or
// nothing was compared).
func runParityCase(path string, asJSON bool, opts dml.DeviceOptions, stdout io.Writer) error {
	c, inputs, expected, err := parity.LoadCaseFile(path)
	if err != nil {
		return err
	}
	d, err := createDevice(opts)
	if err != nil {
		return err
	}
	defer d.Close()
	res, err := vk.CompareCase(d, c, inputs, expected)
	if err != nil {
		return err
	}
	info := d.GPU().Info
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(parityCaseReport{SchemaVersion: jsonSchemaVersion, VkdmlVersion: vkdmlVersion(), Device: info.Name,
			Driver: info.DriverName + " " + info.DriverInfo, CaseResult: *res}); err != nil {
			return err
		}
	} else {
		printCaseResult(stdout, res, info.Name)
	}
	if !res.Passed && res.Verdict != parity.VerdictNotCompared {
		return errParity
	}
	return nil
}

// printCaseResult writes a one-case comparison as text.
func printCaseResult(w io.Writer, res *parity.CaseResult, device string) {
	fmt.Fprintf(w, "case %s on %s\n", res.Case, device)
	if res.Expected != nil {
		fmt.Fprintf(w, "expected: %s\n", outcomeLine(res.Expected))
	}
	fmt.Fprintf(w, "vkdml:    %s\n", outcomeLine(&res.VKDML))
	fmt.Fprintf(w, "verdict:  %s\n", res.Verdict)
	if res.Rule != "" {
		fmt.Fprintf(w, "rule:     %s\n", res.Rule)
	}
	for _, o := range res.Outputs {
		if o.Differing > 0 {
			fmt.Fprintf(w, "output %d: %d of %d %s elements differ\n", o.Output, o.Differing, o.Elements, o.Compared)
		}
	}
	for _, d := range res.Differences {
		fmt.Fprintf(w, "  %s\n", d.Text())
		for _, h := range d.Hints {
			fmt.Fprintf(w, "    hint %s: %s\n", h.Kind, h.Detail)
		}
	}
	if len(res.Differences) == 0 && res.Detail != "" && !res.Passed {
		fmt.Fprintf(w, "detail:   %s\n", res.Detail)
	}
}

func outcomeLine(o *parity.OutcomeRecord) string {
	s := o.Summary
	if o.Message != "" {
		s += " (" + o.Message + ")"
	}
	return s
}
