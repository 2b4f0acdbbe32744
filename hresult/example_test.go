package hresult_test

import (
	"errors"
	"fmt"

	"github.com/vkdml/vkdml/hresult"
)

// Test an error's HRESULT with errors.Is, and reach the call, the field
// and the rule with errors.As, through any wrapping.
func Example() {
	err := hresult.WithOp("CreateOperator(ARGMAX)",
		hresult.WithField("InputTensor", hresult.InvalidArg("Sizes[1]", "a size of zero is invalid")))
	err = fmt.Errorf("loading the model: %w", err)

	fmt.Println(errors.Is(err, hresult.E_INVALIDARG))
	var he *hresult.Error
	if errors.As(err, &he) {
		fmt.Println(he.Op, "|", he.Field, "|", he.Rule)
	}
	fmt.Println(hresult.Code(err))
	// Output:
	// true
	// CreateOperator(ARGMAX) | InputTensor.Sizes[1] | a size of zero is invalid
	// E_INVALIDARG (0x80070057)
}
