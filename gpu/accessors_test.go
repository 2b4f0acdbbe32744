package gpu_test

import (
	"testing"

	"github.com/vkdml/vkdml/gpu"
)

// TestAccessorsOfNilAndZeroObjects: the plain accessors of a nil or zero
// Device or Kernel answer a zero value instead of panicking, as every
// other method of those objects returns an error.
func TestAccessorsOfNilAndZeroObjects(t *testing.T) {
	for name, d := range map[string]*gpu.Device{"nil": nil, "zero": {}} {
		if d.Debug() || d.Lost() || d.CachePath() != "" {
			t.Errorf("%s Device: Debug %v, Lost %v, CachePath %q", name, d.Debug(), d.Lost(), d.CachePath())
		}
		_ = d.Closed()
	}
	for name, k := range map[string]*gpu.Kernel{"nil": nil, "zero": {}} {
		if k.Name() != "" || k.Bindings() != 0 {
			t.Errorf("%s Kernel: Name %q, Bindings %d", name, k.Name(), k.Bindings())
		}
	}
}
