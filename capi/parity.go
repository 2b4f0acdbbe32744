package main

/*
#define VKDML_NO_PROTOTYPES
#include "vkdml.h"
#include <string.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"strings"
	"unsafe"

	"github.com/vkdml/vkdml/internal/parity"
	"github.com/vkdml/vkdml/internal/parity/vk"
)

// maxCaseJSON bounds vkdml_parity_compare's case_json: a desc is a few
// hundred bytes.
const maxCaseJSON = parity.MaxCaseFileSize

//export vkdmlgo_parity_compare
func vkdmlgo_parity_compare(h C.vkdml_device, caseJSON *C.char, inputs *C.vkdml_buffer, nin C.uint32_t,
	expected *C.vkdml_buffer, nexp C.uint32_t, out *C.char, capacity C.size_t, length *C.size_t) C.VKDML_HRESULT {
	return export("vkdml_parity_compare", func(call string) error {
		if out == nil && capacity != 0 {
			return invalidArg(call, "result", "is NULL but capacity is %d", uint64(capacity))
		}
		if caseJSON == nil {
			return invalidArg(call, "case_json", "must not be NULL")
		}
		d, err := lookup[*device](call, "device", uint64(h), "device")
		if err != nil {
			return err
		}
		n := C.strnlen(caseJSON, maxCaseJSON+1)
		if n > maxCaseJSON {
			return invalidArg(call, "case_json", "is longer than %d bytes", maxCaseJSON)
		}
		var spec parity.CaseSpec
		if err := json.Unmarshal(C.GoBytes(unsafe.Pointer(caseJSON), C.int(n)), &spec); err != nil {
			return invalidArg(call, "case_json", "%v (want {\"desc\": {...}, \"expected\": true|false, \"hresult\": ..., \"input_types\": [...], \"expected_types\": [...]})", err)
		}
		ins, err := hostBuffers(call, "inputs", inputs, nin)
		if err != nil {
			return err
		}
		exps, err := hostBuffers(call, "expected", expected, nexp)
		if err != nil {
			return err
		}
		res, err := compareCase(call, d, &spec, asBytes(ins), asBytes(exps))
		if err != nil {
			return err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		copyCString(string(b), out, capacity, length)
		return nil
	})
}

// compareCase runs the comparison of spec on d, counted among d's
// operators so that the device cannot be destroyed under it; a case that
// cannot be compared is E_INVALIDARG naming it.
func compareCase(call string, d *device, spec *parity.CaseSpec, ins, exps [][]byte) (*parity.CaseResult, error) {
	c, err := parity.ParseCaseDesc("case", spec.Desc)
	if err == nil {
		ins, err = parity.CaseInputs(c, ins, spec.InputTypes)
	}
	var want *parity.Outcome
	if err == nil && (spec.Expected || spec.HRESULT != "" || len(exps) > 0) {
		want, err = parity.ExpectedOutcome(c, spec.HRESULT, exps, spec.ExpectedTypes)
	}
	if errors.Is(err, parity.ErrCase) {
		return nil, invalidArg(call, "case", "%s", strings.TrimPrefix(err.Error(), parity.ErrCase.Error()+": "))
	}
	if err != nil {
		return nil, err
	}
	if err := d.acquire(call); err != nil {
		return nil, err
	}
	defer d.releaseOne()
	return vk.CompareCase(d.dev, c, ins, want)
}
