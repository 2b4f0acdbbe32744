package hresult

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorIsAndMessage(t *testing.T) {
	err := WithField("InputTensor", InvalidArg("Sizes[2]", "size %d is invalid", 0))
	err = WithOp("CreateOperator(ARGMAX)", err)
	if !errors.Is(err, E_INVALIDARG) || errors.Is(err, DXGI_ERROR_UNSUPPORTED) {
		t.Fatalf("errors.Is wrong for %v", err)
	}
	want := "CreateOperator(ARGMAX): InputTensor.Sizes[2]: size 0 is invalid [E_INVALIDARG]"
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	wrapped := fmt.Errorf("context: %w", err)
	var he *Error
	if !errors.As(wrapped, &he) || he.Field != "InputTensor.Sizes[2]" || Code(wrapped) != E_INVALIDARG {
		t.Fatalf("errors.As through wrapping failed: %+v", he)
	}
	if Code(nil) != S_OK || Code(errors.New("x")) != E_FAIL || Code(DXGI_ERROR_DEVICE_REMOVED) != DXGI_ERROR_DEVICE_REMOVED {
		t.Fatal("Code")
	}
	if WithField("A", InvalidArg("[3]", "x")).(*Error).Field != "A[3]" {
		t.Fatal("WithField index")
	}
	if !strings.Contains(E_INVALIDARG.String(), "0x80070057") || !E_INVALIDARG.Failed() || S_OK.Failed() {
		t.Fatal("String/Failed")
	}
	if HRESULT(0x80001234).Name() != "0x80001234" {
		t.Fatal("unknown name")
	}
}

// TestErrorTextIsASCII: a rule written with formula characters, or a
// caller's string with a non-breaking space, prints in ASCII.
func TestErrorTextIsASCII(t *testing.T) {
	err := &Error{Code: E_INVALIDARG, Op: "op\u00a0x", Field: "Strides", Rule: "Σ (Sizes[i]−1)·Strides[i] ≥ 2^64 × 2 ≤ 3", Err: errors.New("a\u00a0b")}
	got := err.Error()
	for _, r := range got {
		if r > 0x7F {
			t.Fatalf("non-ASCII %q in %q", r, got)
		}
	}
	if want := "op x: Strides: sum (Sizes[i]-1)*Strides[i] >= 2^64 x 2 <= 3: a b [E_INVALIDARG]"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
