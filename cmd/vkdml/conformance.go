package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vkdml/vkdml/internal/conformance"
	"github.com/vkdml/vkdml/internal/operators"
)

// conformanceReport is `vkdml conformance --json` (docs/json.md).
type conformanceReport struct {
	SchemaVersion int    `json:"schema_version"`
	VkdmlVersion  string `json:"vkdml_version"`
	Device        string `json:"device"`
	Driver        string `json:"driver"`
	DataDir       string `json:"data_dir"`
	Passed        int    `json:"passed"`
	Failed        int    `json:"failed"`
	Skipped       int    `json:"skipped"`
	Total         int    `json:"total"`
	// NotMapped counts the folders not run (their operator is none vkdml
	// maps, or they hold no node test); cases lists each with the reason.
	NotMapped int                  `json:"not_mapped"`
	Cases     []conformance.Result `json:"cases"`
}

// errConformance is returned when a case failed: the table says which.
var errConformance = errors.New("conformance failures")

func runConformance(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("conformance", "conformance [--data DIR] [--json] [--device SEL] [--debug]", stderr)
	data := fs.String("data", conformance.DataDir(), "folder of ONNX node test data sets (default $VKDML_ONNX_DATA, else Debian's libonnx-testdata)")
	asJSON := fs.Bool("json", false, "print JSON")
	devOpts := deviceFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: vkdml conformance [--data DIR] [--json] [--device SEL] [--debug]\n")
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nIt runs the data sets of the ONNX node types vkdml maps onto DirectML's\noperators:\n%s", indentedList(conformance.MappedTypes(), 76))
	}
	if err := parseFlagsOnly(fs, args, stdout); err != nil {
		return err
	}
	if _, err := conformance.Cases(*data); err != nil {
		return err
	}
	d, err := createDevice(devOpts())
	if err != nil {
		return err
	}
	defer d.Close()
	rs, err := conformance.Run(d, *data, nil)
	if err != nil {
		return err
	}
	sum := conformance.Summarize(rs)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(conformanceReport{SchemaVersion: jsonSchemaVersion, VkdmlVersion: vkdmlVersion(),
			Device: d.GPU().Info.Name, Driver: d.GPU().Info.DriverName + " " + d.GPU().Info.DriverInfo, DataDir: *data,
			Passed: sum.Passed, Failed: sum.Failed, Skipped: sum.Skipped, Total: sum.Total, NotMapped: sum.NotMapped, Cases: rs}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "ONNX node tests (%s) on %s\n\n", *data, d.GPU().Info.Name)
		printConformance(stdout, rs)
		printNotMapped(stdout, rs)
		fmt.Fprintf(stdout, "\n%d data sets\n%s\n", sum.Total, sum)
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%w: %d of %d data sets failed", errConformance, sum.Failed, sum.Total)
	}
	return nil
}

func printConformance(w io.Writer, rs []conformance.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tOPERATOR\tTIME\tREASON")
	for _, r := range rs {
		if r.Status == conformance.NotMapped {
			continue
		}
		reason := strings.ReplaceAll(r.Reason, "\n", " ")
		if len(reason) > 160 && r.Status == conformance.Pass {
			reason = reason[:157] + "..."
		}
		op := r.Op
		if op == "" {
			op = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Case, strings.ToUpper(string(r.Status)), op, r.Duration.Round(time.Millisecond), reason)
	}
	tw.Flush()
}

// printNotMapped says which folders were not run and why: per ONNX
// operator vkdml does not map, how many data sets; then each folder that
// holds no readable node test, by name.
func printNotMapped(w io.Writer, rs []conformance.Result) {
	byOp := map[string]int{}
	var ops, multi, other []string
	for _, r := range rs {
		switch {
		case r.Status != conformance.NotMapped:
		case r.Nodes > 1:
			multi = append(multi, r.Case)
		case r.ONNXOp != "":
			if byOp[r.ONNXOp] == 0 {
				ops = append(ops, r.ONNXOp)
			}
			byOp[r.ONNXOp]++
		default:
			other = append(other, r.Case+": "+r.Reason)
		}
	}
	if len(ops) > 0 {
		sort.Strings(ops)
		n := 0
		for i, op := range ops {
			n += byOp[op]
			ops[i] = fmt.Sprintf("%s %d", op, byOp[op])
		}
		fmt.Fprintf(w, "\nnot mapped: %d data sets of %d operators vkdml does not map:\n%s", n, len(ops), operators.Wrap(strings.Join(ops, ", "), 100))
	}
	if len(multi) > 0 {
		fmt.Fprintf(w, "not mapped: %d models of several nodes (expanded functions, not node tests), %s ... %s\n", len(multi), multi[0], multi[len(multi)-1])
	}
	for _, o := range other {
		fmt.Fprintf(w, "not mapped: %s\n", o)
	}
}

// indentedList writes names comma-separated on lines of at most width
// characters, each indented by two spaces.
func indentedList(names []string, width int) string {
	var b, line strings.Builder
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if line.Len() > 0 && line.Len()+1+len(n) > width-2 {
			b.WriteString("  " + line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteString(" ")
		}
		line.WriteString(n)
	}
	if line.Len() > 0 {
		b.WriteString("  " + line.String() + "\n")
	}
	return b.String()
}
