// Package hresult carries DirectML's error codes through Go errors.
//
// Every creation-time or bind-time failure in vkdml is an *Error whose Code
// is the HRESULT DirectML returns for the same mistake (semantics.md rule 14)
// and whose message names the field and the rule. Callers test the code with
// errors.Is(err, hresult.E_INVALIDARG) and reach the details with errors.As.
package hresult

import (
	"errors"
	"fmt"
	"strings"
)

// HRESULT is a Windows result code. It implements error so that it can be
// used as a sentinel with errors.Is.
type HRESULT uint32

// The codes DirectML returns, with their Windows values.
const (
	S_OK                             HRESULT = 0x00000000 // success
	E_FAIL                           HRESULT = 0x80004005 // unspecified failure (vkdml: a Vulkan error without a closer code, a closed command list)
	E_INVALIDARG                     HRESULT = 0x80070057 // an argument, desc field or binding breaks a rule; also the use of a released, closed or foreign object
	E_OUTOFMEMORY                    HRESULT = 0x8007000E // the host or the device cannot hold what was asked for
	E_NOTIMPL                        HRESULT = 0x80004001 // not implemented
	E_UNEXPECTED                     HRESULT = 0x8000FFFF // vkdml: an internal error (a bug in vkdml, such as a panic in a planner), caught at an API boundary
	DXGI_ERROR_UNSUPPORTED           HRESULT = 0x887A0004 // valid, but not supported by vkdml or the device
	DXGI_ERROR_DEVICE_REMOVED        HRESULT = 0x887A0005 // the device was lost; every later call fails
	DXGI_ERROR_DEVICE_HUNG           HRESULT = 0x887A0006 // the device stopped responding
	DXGI_ERROR_DRIVER_INTERNAL       HRESULT = 0x887A0020 // the driver failed internally
	DXGI_ERROR_SDK_COMPONENT_MISSING HRESULT = 0x887A002D // a required runtime component (e.g. the Vulkan loader) is missing
)

var names = map[HRESULT]string{
	S_OK:                             "S_OK",
	E_FAIL:                           "E_FAIL",
	E_INVALIDARG:                     "E_INVALIDARG",
	E_OUTOFMEMORY:                    "E_OUTOFMEMORY",
	E_NOTIMPL:                        "E_NOTIMPL",
	E_UNEXPECTED:                     "E_UNEXPECTED",
	DXGI_ERROR_UNSUPPORTED:           "DXGI_ERROR_UNSUPPORTED",
	DXGI_ERROR_DEVICE_REMOVED:        "DXGI_ERROR_DEVICE_REMOVED",
	DXGI_ERROR_DEVICE_HUNG:           "DXGI_ERROR_DEVICE_HUNG",
	DXGI_ERROR_DRIVER_INTERNAL:       "DXGI_ERROR_DRIVER_INTERNAL",
	DXGI_ERROR_SDK_COMPONENT_MISSING: "DXGI_ERROR_SDK_COMPONENT_MISSING",
}

// String returns the symbolic name and the hexadecimal value, for example
// "E_INVALIDARG (0x80070057)".
func (h HRESULT) String() string {
	if n, ok := names[h]; ok {
		return fmt.Sprintf("%s (0x%08X)", n, uint32(h))
	}
	return fmt.Sprintf("HRESULT 0x%08X", uint32(h))
}

// Name returns the symbolic name, or the hexadecimal value when unknown.
func (h HRESULT) Name() string {
	if n, ok := names[h]; ok {
		return n
	}
	return fmt.Sprintf("0x%08X", uint32(h))
}

// Failed reports whether h is an error code (its severity bit is set).
func (h HRESULT) Failed() bool { return h&0x80000000 != 0 }

// Error makes an HRESULT usable as an error and as an errors.Is target.
func (h HRESULT) Error() string { return h.String() }

// Error is a failure with DirectML's HRESULT, the call it came from, the
// field at fault and the rule that field broke.
type Error struct {
	Code  HRESULT // DirectML's code for this failure
	Op    string  // the call, e.g. "CreateOperator(ARGMAX)"; may be empty
	Field string  // the field at fault, e.g. "InputTensor.Sizes[2]"; may be empty
	Rule  string  // what the field must satisfy, in words
	Err   error   // an underlying cause, if any
}

// Error formats "Op: Field: Rule: cause [CODE]", leaving out what is empty.
func (e *Error) Error() string {
	msg := ""
	if e.Op != "" {
		msg = e.Op + ": "
	}
	if e.Field != "" {
		msg += e.Field + ": "
	}
	msg += e.Rule
	if e.Err != nil {
		if msg != "" && e.Rule != "" {
			msg += ": "
		}
		msg += e.Err.Error()
	}
	return asciiFor.Replace(msg) + " [" + e.Code.Name() + "]"
}

// asciiFor spells the non-ASCII characters a message may carry (from a
// rule's formula or a caller's string) in ASCII, so that error text reads
// the same on every terminal and log: a UTF-8 middle dot or non-breaking
// space shows as "Â·" or "Â " under Latin-1.
var asciiFor = strings.NewReplacer(
	"\u00a0", " ", "\u202f", " ", "\u2009", " ", "\u00b7", "*", "\u00d7", "x", "\u2212", "-", "\u2013", "-", "\u2014", "-",
	"\u2264", "<=", "\u2265", ">=", "\u2260", "!=", "\u00b1", "+/-", "\u00b5", "u", "\u03a3", "sum", "\u03a0", "prod",
	"\u2026", "...", "\u2018", "'", "\u2019", "'", "\u201c", "\"", "\u201d", "\"", "\u2192", "->", "\u221e", "inf",
)

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, hresult.E_INVALIDARG) true for an *Error with that
// code.
func (e *Error) Is(target error) bool {
	h, ok := target.(HRESULT)
	return ok && h == e.Code
}

// InvalidArg returns an E_INVALIDARG error for field, with the rule written
// as a format string.
func InvalidArg(field, format string, args ...any) *Error {
	return &Error{Code: E_INVALIDARG, Field: field, Rule: fmt.Sprintf(format, args...)}
}

// Unsupported returns a DXGI_ERROR_UNSUPPORTED error for field.
func Unsupported(field, format string, args ...any) *Error {
	return &Error{Code: DXGI_ERROR_UNSUPPORTED, Field: field, Rule: fmt.Sprintf(format, args...)}
}

// WithOp returns err with Op set when err is an *Error that names no call
// yet, so that the outermost call names itself once. Other errors are
// returned unchanged.
func WithOp(op string, err error) error {
	he, ok := err.(*Error)
	if !ok || he.Op != "" {
		return err
	}
	c := *he
	c.Op = op
	return &c
}

// WithField prefixes the field of err (an *Error) with prefix, so that a
// nested validator can say "InputTensor" + ".Sizes[1]". Other errors are
// returned unchanged.
func WithField(prefix string, err error) error {
	he, ok := err.(*Error)
	if !ok {
		return err
	}
	c := *he
	if c.Field == "" {
		c.Field = prefix
	} else if c.Field[0] == '[' {
		c.Field = prefix + c.Field
	} else {
		c.Field = prefix + "." + c.Field
	}
	return &c
}

// Code returns the HRESULT carried by err: S_OK for nil, the *Error's or
// HRESULT's code when there is one in the chain, and E_FAIL otherwise.
func Code(err error) HRESULT {
	if err == nil {
		return S_OK
	}
	var he *Error
	if errors.As(err, &he) {
		return he.Code
	}
	var h HRESULT
	if errors.As(err, &h) {
		return h
	}
	return E_FAIL
}
