package dml_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/internal/testutil"
)

// TestMain keeps the Examples, which need a Vulkan device and cannot skip
// themselves, from failing the package where there is none: without a
// device (and without CI=true, where a missing device must fail), a plain
// `go test` runs only the tests, which skip.
func TestMain(m *testing.M) {
	flag.Parse()
	if !testutil.InCI() {
		if run := flag.Lookup("test.run"); run != nil && run.Value.String() == "" && !haveDevice() {
			fmt.Println("dml: no Vulkan device: the Examples are not run")
			run.Value.Set("^Test")
		}
	}
	os.Exit(m.Run())
}

func haveDevice() bool {
	d, err := dml.CreateDevice(dml.DeviceOptions{PipelineCacheDir: "off"})
	if err != nil {
		return !errors.Is(err, gpu.ErrNoLoader) && !errors.Is(err, gpu.ErrNoDevice)
	}
	d.Close()
	return true
}
