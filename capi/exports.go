package main

/*
#define VKDML_NO_PROTOTYPES
#include "vkdml.h"
#include <string.h>
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/internal/lru"
	"github.com/vkdml/vkdml/tensor"
)

// The exports below are called only by the wrappers in vkdml.c, which
// carry vkdml.h's names and const-qualified prototypes. Each runs its body
// through export.

// export runs the body of the export for C function call and returns its
// HRESULT; finish clears or sets the calling thread's message, and turns a
// panic in body into E_UNEXPECTED with a one-line message.
func export(call string, body func(call string) error) (hr C.VKDML_HRESULT) {
	var err error
	defer finish(call, &hr, &err)
	err = body(call)
	return
}

//export vkdmlgo_device_create
func vkdmlgo_device_create(opts *C.vkdml_device_options, out *C.vkdml_device) C.VKDML_HRESULT {
	return export("vkdml_device_create", func(call string) error {
		if out == nil {
			return invalidArg(call, "device", "must not be NULL")
		}
		*out = 0
		var o dml.DeviceOptions
		if opts != nil {
			o.Flags = dml.CreateDeviceFlags(opts.flags)
			o.MinimumFeatureLevel = dml.FeatureLevel(opts.minimum_feature_level)
			if opts.device != nil {
				o.Device = C.GoString(opts.device)
			}
		}
		d, err := dml.CreateDevice(o)
		if err != nil {
			return err
		}
		*out = C.vkdml_device(handles.add(&device{dev: d, runs: newRunCache()}))
		return nil
	})
}

//export vkdmlgo_device_destroy
func vkdmlgo_device_destroy(h C.vkdml_device) C.VKDML_HRESULT {
	return export("vkdml_device_destroy", func(call string) error {
		d, err := lookup[*device](call, "device", uint64(h), "device")
		if err != nil {
			return err
		}
		if err := d.close(call); err != nil {
			return err
		}
		handles.remove(uint64(h))
		return nil
	})
}

//export vkdmlgo_device_name
func vkdmlgo_device_name(h C.vkdml_device, name *C.char, capacity C.size_t, length *C.size_t) C.VKDML_HRESULT {
	return export("vkdml_device_name", func(call string) error {
		d, err := lookup[*device](call, "device", uint64(h), "device")
		if err != nil {
			return err
		}
		if name == nil && capacity != 0 {
			return invalidArg(call, "name", "is NULL but capacity is %d", uint64(capacity))
		}
		copyCString(d.dev.GPU().Info.Name, name, capacity, length)
		return nil
	})
}

//export vkdmlgo_devices_json
func vkdmlgo_devices_json(out *C.char, capacity C.size_t, length *C.size_t) C.VKDML_HRESULT {
	return export("vkdml_devices_json", func(call string) error {
		if out == nil && capacity != 0 {
			return invalidArg(call, "json", "is NULL but capacity is %d", uint64(capacity))
		}
		s, err := devicesJSON()
		if err != nil {
			return err
		}
		copyCString(s, out, capacity, length)
		return nil
	})
}

// devicesJSON lists the Vulkan devices for vkdml_devices_json: the
// reports `vkdml devices --json` prints, with Vulkan's camelCase keys.
func devicesJSON() (string, error) {
	reports, _, err := dml.DeviceReports("")
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(reports)
	return string(b), err
}

// copyCString copies s, NUL-terminated and truncated to capacity bytes,
// into dst, and stores len(s) in *length when length is not NULL.
func copyCString(s string, dst *C.char, capacity C.size_t, length *C.size_t) {
	if length != nil {
		*length = C.size_t(len(s))
	}
	if capacity > 0 {
		// Only len(s)+1 bytes are written: a capacity larger than Go can
		// view (size_t is unsigned) is no error.
		b := unsafe.Slice((*byte)(unsafe.Pointer(dst)), int(min(uint64(capacity), uint64(len(s))+1)))
		n := copy(b[:len(b)-1], s)
		b[n] = 0
	}
}

//export vkdmlgo_device_feature_levels
func vkdmlgo_device_feature_levels(h C.vkdml_device, requested *C.uint32_t, count C.uint32_t, best *C.uint32_t) C.VKDML_HRESULT {
	return export("vkdml_device_feature_levels", func(call string) error {
		d, err := lookup[*device](call, "device", uint64(h), "device")
		if err != nil {
			return err
		}
		if best == nil {
			return invalidArg(call, "max_supported", "must not be NULL")
		}
		levels, err := u32s(call, "requested", requested, count)
		if err != nil {
			return err
		}
		b, err := d.featureLevels(levels)
		if err != nil {
			return err
		}
		*best = C.uint32_t(b)
		return nil
	})
}

//export vkdmlgo_calc_buffer_tensor_size
func vkdmlgo_calc_buffer_tensor_size(desc *C.vkdml_tensor_desc, size *C.uint64_t) C.VKDML_HRESULT {
	return export("vkdml_calc_buffer_tensor_size", func(call string) error {
		if size == nil {
			return invalidArg(call, "size_in_bytes", "must not be NULL")
		}
		td, err := tensorDesc(call, "desc", desc, false)
		if err != nil {
			return err
		}
		if !td.DataType.Valid() {
			return invalidArg(call, "desc.data_type", "%d is not a data type vkdml supports", uint32(td.DataType))
		}
		*size = C.uint64_t(tensor.CalcBufferTensorSize(td.DataType, td.Sizes, td.Strides))
		return nil
	})
}

//export vkdmlgo_operator_create
func vkdmlgo_operator_create(h C.vkdml_device, desc *C.vkdml_operator_desc, out *C.vkdml_operator) C.VKDML_HRESULT {
	return export("vkdml_operator_create", func(call string) error {
		if out == nil {
			return invalidArg(call, "op", "must not be NULL")
		}
		*out = 0
		p, err := create(call, h, desc)
		if err != nil {
			return err
		}
		*out = C.vkdml_operator(handles.add(p))
		return nil
	})
}

// create is vkdml_operator_create without the handle.
func create(call string, h C.vkdml_device, desc *C.vkdml_operator_desc) (*preparedOp, error) {
	d, err := lookup[*device](call, "device", uint64(h), "device")
	if err != nil {
		return nil, err
	}
	od, err := operatorDesc(call, desc)
	if err != nil {
		return nil, err
	}
	return prepare(call, d, od)
}

//export vkdmlgo_operator_run
func vkdmlgo_operator_run(h C.vkdml_operator, inputs *C.vkdml_buffer, nin C.uint32_t, outputs *C.vkdml_buffer, nout C.uint32_t) C.VKDML_HRESULT {
	return export("vkdml_operator_run", func(call string) error {
		p, err := lookup[*preparedOp](call, "op", uint64(h), "operator")
		if err != nil {
			return err
		}
		return runHost(call, p, inputs, nin, outputs, nout)
	})
}

// runHost converts the vkdml_buffer arrays and runs p.
func runHost(call string, p *preparedOp, inputs *C.vkdml_buffer, nin C.uint32_t, outputs *C.vkdml_buffer, nout C.uint32_t) error {
	ins, err := hostBuffers(call, "inputs", inputs, nin)
	if err != nil {
		return err
	}
	outs, err := hostBuffers(call, "outputs", outputs, nout)
	if err != nil {
		return err
	}
	return p.run(ins, outs)
}

// maxHostBytes bounds a host buffer's size_in_bytes: Go cannot view more
// (unsafe.Slice panics above its largest allocation, 2^48 bytes on 64-bit
// machines), and no machine's address space holds more.
const maxHostBytes = 1 << 47

// hostBuffers views n vkdml_buffers as Go slices over their C memory.
func hostBuffers(call, field string, p *C.vkdml_buffer, n C.uint32_t) ([]hostBuffer, error) {
	if n > maxArrayCount {
		return nil, invalidArg(call, strings.TrimSuffix(field, "s")+"_count", "%d is implausibly large", uint32(n))
	}
	if n > 0 && p == nil {
		return nil, invalidArg(call, field, "is NULL but its count is %d", uint32(n))
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]hostBuffer, n)
	for i, b := range unsafe.Slice(p, int(n)) {
		if uint64(b.size_in_bytes) > maxHostBytes {
			return nil, invalidArg(call, fmt.Sprintf("%s[%d].size_in_bytes", field, i), "%d is larger than any host buffer can be (at most %d)", uint64(b.size_in_bytes), uint64(maxHostBytes))
		}
		if b.data != nil && b.size_in_bytes > 0 {
			out[i] = unsafe.Slice((*byte)(b.data), int(b.size_in_bytes))
		} else if b.data != nil {
			out[i] = hostBuffer{} // non-nil, empty: reported as too small
		}
	}
	return out, nil
}

//export vkdmlgo_operator_destroy
func vkdmlgo_operator_destroy(h C.vkdml_operator) C.VKDML_HRESULT {
	return export("vkdml_operator_destroy", func(call string) error {
		p, err := lookup[*preparedOp](call, "op", uint64(h), "operator")
		if err != nil {
			return err
		}
		handles.remove(uint64(h))
		p.releaseLocked()
		return nil
	})
}

//export vkdmlgo_run
func vkdmlgo_run(h C.vkdml_device, desc *C.vkdml_operator_desc, inputs *C.vkdml_buffer, nin C.uint32_t, outputs *C.vkdml_buffer, nout C.uint32_t) C.VKDML_HRESULT {
	return export("vkdml_run", func(call string) error {
		e, err := cachedRun(call, h, desc)
		if err != nil {
			return err
		}
		defer e.dev.runs.Done(e.entry)
		return runHost(call, e.entry.Value, inputs, nin, outputs, nout)
	})
}

// cachedOp is an operator from a device's vkdml_run cache, in use.
type cachedOp struct {
	dev   *device
	entry *runEntry
}

// cachedRun finds desc's operator in the device's cache, or prepares and
// caches it.
func cachedRun(call string, h C.vkdml_device, desc *C.vkdml_operator_desc) (cachedOp, error) {
	d, err := lookup[*device](call, "device", uint64(h), "device")
	if err != nil {
		return cachedOp{}, err
	}
	od, err := operatorDesc(call, desc)
	if err != nil {
		return cachedOp{}, err
	}
	key, ok := lru.Key(od)
	if ok {
		if e := d.runs.Acquire(key); e != nil {
			return cachedOp{d, e}, nil
		}
	}
	p, err := prepare(call, d, od)
	if err != nil {
		return cachedOp{}, err
	}
	if !ok { // not cacheable: a private entry, released by done
		return cachedOp{d, lru.Detached(p)}, nil
	}
	return cachedOp{d, d.runs.Add(key, p)}, nil
}
