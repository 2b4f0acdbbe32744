package ops

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/shaders"
)

// TestKernelOfFillsByName: the planners' kernels take their bindings and
// push-constant bytes from the variant's row and their specialization
// constants by name, in the row's order; a constant the row does not
// declare, or one left unset, fails the plan instead of shifting or
// zeroing the constants after it. The same holds for a step's push words.
func TestKernelOfFillsByName(t *testing.T) {
	variant := shaders.MaxPoolVec2x2Name(32) // spec: local_size_x IH IW OH OW KIND; push: quads per
	spec := func() *shaders.Values {
		return shaders.NewSpec(variant).Set("OW", 4).Set("OH", 3).Set("IW", 8).Set("IH", 6).Set(shaders.SpecWorkgroupSize, 64)
	}
	k, err := kernelOf(spec().Set("KIND", shaders.KindFloat))
	if err != nil {
		t.Fatal(err)
	}
	if k.Variant != variant || k.Bindings != 3 || k.ParamBytes != 8 || !slices.Equal(k.Spec, []uint32{64, 6, 8, 3, 4, shaders.KindFloat}) {
		t.Errorf("kernel %+v; want %s, 3 bindings, 8 parameter bytes, spec [64 6 8 3 4 2]", k, variant)
	}
	for _, c := range []struct {
		what string
		err  error
		says string
	}{
		{"an undeclared constant", second(kernelOf(spec().Set("KIND", 0).Set("KH", 2))), `"KH", which the variant does not declare`},
		{"a constant left unset", second(kernelOf(spec())), `"KIND", unset`},
		{"an undeclared push word", second(pushBytes(shaders.NewPush(variant).Set("quads", 1).Set("per", 1).Set("plane0", 0))), `"plane0", which`},
		{"a push word left unset", second(pushBytes(shaders.NewPush(variant).Set("quads", 1))), `"per", unset`},
	} {
		if !errors.Is(c.err, shaders.ErrContract) || !strings.Contains(c.err.Error(), variant) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("%s: %v; want ErrContract naming %s and saying %q", c.what, c.err, variant, c.says)
		}
	}
}

// TestSetArrayRefusesExtraElements: copy.comp's arrays hold 8 dimensions;
// a ninth is an undeclared word, not a dropped one.
func TestSetArrayRefusesExtraElements(t *testing.T) {
	push := shaders.NewPush(shaders.CopyName(32, false)).Set("rank", 9).Set("total", 1)
	setArray(push, "sizes", 8, make([]uint32, 9))
	if _, err := push.Words(); !errors.Is(err, shaders.ErrContract) || !strings.Contains(err.Error(), `"sizes[8]"`) {
		t.Errorf("a ninth size: %v", err)
	}
}

// second is the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
