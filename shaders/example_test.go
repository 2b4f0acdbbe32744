package shaders_test

import (
	"fmt"

	"github.com/vkdml/vkdml/shaders"
)

// A plan's kernel is checked against its module: the right numbers pass,
// a wrong push-constant size is refused with the reason.
func ExampleCheckKernel() {
	name := shaders.MaxPoolName(16, false, 0) // 16-bit elements in words, no indices
	fmt.Println(name, shaders.CheckKernel(name, 2, 20, 31))
	fmt.Println(shaders.CheckKernel(name, 2, 24, 31))
	// Output:
	// maxpool_b16w_noidx <nil>
	// shaders: kernel does not match its module: maxpool_b16w_noidx: the plan pushes 32 bytes (2 base offsets and 24 parameter bytes), the module's push-constant block is 28 bytes
}

func ExampleInfo() {
	m, err := shaders.Info(shaders.ArgMaxName(8, true, shaders.ArgMaxGroupSG))
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Capabilities, m.Bindings, m.PushConstantBytes, len(m.SpecIDs))
	// Output: [Shader GroupNonUniform GroupNonUniformArithmetic StorageBuffer8BitAccess] [0 1] 48 26
}
