package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vkdml/vkdml/internal/conformance"
)

// conformanceReport is `vkdml conformance --json` (docs/json.md).
type conformanceReport struct {
	SchemaVersion int                  `json:"schema_version"`
	VkdmlVersion  string               `json:"vkdml_version"`
	Device        string               `json:"device"`
	Driver        string               `json:"driver"`
	DataDir       string               `json:"data_dir"`
	Passed        int                  `json:"passed"`
	Failed        int                  `json:"failed"`
	Skipped       int                  `json:"skipped"`
	Total         int                  `json:"total"`
	Cases         []conformance.Result `json:"cases"`
}

// errConformance is returned when a case failed: the table says which.
var errConformance = errors.New("conformance failures")

func runConformance(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("conformance", "conformance [--data DIR] [--json] [--device SEL] [--debug]", stderr)
	data := fs.String("data", conformance.DataDir(), "folder of ONNX node test data sets (default $VKDML_ONNX_DATA, else Debian's libonnx-testdata)")
	asJSON := fs.Bool("json", false, "print JSON")
	devOpts := deviceFlags(fs)
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
			Passed: sum.Passed, Failed: sum.Failed, Skipped: sum.Skipped, Total: sum.Total, Cases: rs}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "ONNX node tests (%s) on %s\n\n", *data, d.GPU().Info.Name)
		printConformance(stdout, rs)
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
