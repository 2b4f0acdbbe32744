package main

import (
	"fmt"
	"io"

	"github.com/vkdml/vkdml/internal/operators"
)

// runDemo is `vkdml demo`: every operator's documented examples on the
// device, each checked against the documented result and the CPU reference.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "demo [--device SEL] [--debug]", stderr)
	devOpts := deviceFlags(fs)
	if err := parseFlagsOnly(fs, args, stdout); err != nil {
		return err
	}
	d, err := createDevice(devOpts())
	if err != nil {
		return err
	}
	defer d.Close()
	info := d.GPU().Info
	fmt.Fprintf(stdout, "device: %s (%s, Vulkan %s, %s)\n", info.Name, info.TypeName, info.API, info.DriverInfo)
	demos := operators.Demos()
	failed := 0
	for _, c := range demos {
		fmt.Fprintf(stdout, "\n== %s\n", c.Title)
		if err := c.Run(d, stdout); err != nil {
			fmt.Fprintf(stdout, "FAILED: %v\n", err)
			failed++
			continue
		}
		fmt.Fprintln(stdout, "ok")
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d examples failed", failed, len(demos))
	}
	fmt.Fprintf(stdout, "\nall %d examples match\n", len(demos))
	return nil
}
