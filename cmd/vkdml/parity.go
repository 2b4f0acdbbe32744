package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/vk"
)

// errParity says that the comparison found differences (the table says
// which); the exit status is 1.
var errParity = errors.New("vkdml differs from DirectML")

// runParity runs the parity corpus through vkdml and compares every case
// with the goldens DirectML produced (parity/cmd/dmlrunner, on Windows or
// under Wine): a table of case, DirectML, vkdml, verdict, then the summary
// line `parity: N equal, M differ, K rejected by both`.
func runParity(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("parity", "parity [--corpus DIR] [--golden DIR] [--device SEL] [--debug]", stderr)
	corpus := fs.String("corpus", "tests/parity", "corpus directory (corpus.json, inputs/, known-differences.json)")
	golden := fs.String("golden", "", "DirectML's results (results.json and .npy outputs; default CORPUS/golden)")
	devOpts := deviceFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	if *golden == "" {
		*golden = filepath.Join(*corpus, parity.GoldenDir)
	}
	// Check the files before opening a device.
	if _, err := parity.LoadCorpus(*corpus); err != nil {
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
	fmt.Fprintf(stdout, "vkdml on %s (%s); DirectML results from %s, %s, feature level %s\n\n", info.Name, info.DriverInfo, res.Producer, res.Adapter, res.FeatureLevel)
	rep, err := vk.Compare(d, *corpus, *golden, nil)
	if err != nil {
		return err
	}
	rep.Print(stdout)
	if rep.Failed() {
		return errParity
	}
	return nil
}
