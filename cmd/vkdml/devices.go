package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/profiles"
)

// devicesJSON is `vkdml devices --json`.
type devicesJSON struct {
	SchemaVersion int    `json:"schema_version"`
	VkdmlVersion  string `json:"vkdml_version"`
	Default       int    `json:"default"` // index of the default device; -1 when none is usable
	Devices       any    `json:"devices"`
}

func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("devices", "devices [--json] [--device SEL]", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	sel := fs.String("device", "", "selector used to mark the default (index or name substring; default $VKDML_DEVICE)")
	if err := parseFlagsOnly(fs, args, stdout); err != nil {
		return err
	}
	reports, def, err := dml.DeviceReports(*sel)
	if err != nil {
		return err
	}
	if *asJSON {
		devs, err := snakeJSON(reports)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(devicesJSON{jsonSchemaVersion, vkdmlVersion(), def, devs}); err != nil {
			return err
		}
	} else if len(reports) == 0 {
		fmt.Fprintln(stdout, "no Vulkan devices")
	} else {
		for _, r := range reports {
			printDevice(stdout, r)
		}
	}
	return selectorError(*sel, reports, def)
}

// selectorError says why --device (or $VKDML_DEVICE) selects no usable
// device, after the list was printed; nil when it selects one or none was
// given.
func selectorError(sel string, infos []dml.DeviceReport, def int) error {
	what := "--device"
	if sel == "" {
		sel, what = os.Getenv("VKDML_DEVICE"), "$VKDML_DEVICE"
	}
	if sel == "" || def >= 0 {
		return nil
	}
	if i, err := strconv.Atoi(sel); err == nil {
		if i < 0 || i >= len(infos) {
			return fmt.Errorf("%s %d: no such device (there are %d: indices 0..%d)", what, i, len(infos), len(infos)-1)
		}
		return fmt.Errorf("%s %d (%s): not usable: %s", what, i, infos[i].Name, infos[i].UnusableBecause)
	}
	return fmt.Errorf("%s %q matches the name of no usable device", what, sel)
}

// snakeJSON marshals v and renames every object key to snake_case, so that
// the device's Vulkan names (maxStorageBufferRange) follow the one key
// style of the command's JSON (max_storage_buffer_range); profiles reads
// them back with the same SnakeCase.
func snakeJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			m := make(map[string]any, len(t))
			for k, e := range t {
				m[profiles.SnakeCase(k)] = walk(e)
			}
			return m
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		}
		return x
	}
	return walk(x), nil
}

func onOff(name string, v bool) string {
	if v {
		return name
	}
	return "!" + name
}

func printDevice(w io.Writer, r dml.DeviceReport) {
	mark := " "
	if r.Default {
		mark = "*"
	}
	l, f := r.Limits, r.Features
	fmt.Fprintf(w, "%s %d: %s (%s)\n", mark, r.Index, r.Name, r.TypeName)
	fmt.Fprintf(w, "    Vulkan %s, driver %s %s, vendor %#04x device %#04x, uuid %s\n", r.API, r.DriverName, r.DriverInfo, r.VendorID, r.DeviceID, r.UUID)
	if !r.Usable {
		fmt.Fprintf(w, "    not usable: %s\n", r.UnusableBecause)
		return
	}
	fmt.Fprintf(w, "    subgroup size %d (min %d, max %d), operations: %s\n", l.SubgroupSize, l.MinSubgroupSize, l.MaxSubgroupSize, strings.Join(r.SubgroupOperationNames, " "))
	fmt.Fprintf(w, "    features: %s\n", strings.Join([]string{
		onOff("shaderInt64", f.ShaderInt64), onOff("shaderInt16", f.ShaderInt16), onOff("shaderInt8", f.ShaderInt8),
		onOff("shaderFloat16", f.ShaderFloat16), onOff("storageBuffer8BitAccess", f.StorageBuffer8Bit),
		onOff("storageBuffer16BitAccess", f.StorageBuffer16Bit), onOff("subgroupArithmetic", f.SubgroupArithmetic),
		onOff("subgroupSizeControl", f.SubgroupSizeControl), onOff("computeFullSubgroups", f.ComputeFullSubgroups),
		onOff("shaderDenormPreserveFloat32", f.DenormPreserveFloat32),
		onOff("shaderSignedZeroInfNanPreserveFloat32", f.SignedZeroInfNanPreserveFloat32),
		onOff("shaderRoundingModeRTEFloat32", f.RoundingModeRTEFloat32),
	}, " "))
	fmt.Fprintf(w, "    limits: maxStorageBufferRange %d, maxComputeSharedMemorySize %d, maxComputeWorkGroupInvocations %d,\n",
		l.MaxStorageBufferRange, l.MaxComputeSharedMemorySize, l.MaxComputeWorkGroupInvocations)
	fmt.Fprintf(w, "            maxComputeWorkGroupSize %v, maxComputeWorkGroupCount %v, maxPushConstantsSize %d,\n",
		l.MaxComputeWorkGroupSize, l.MaxComputeWorkGroupCount, l.MaxPushConstantsSize)
	fmt.Fprintf(w, "            maxMemoryAllocationSize %d, minStorageBufferOffsetAlignment %d, timestampPeriod %g ns (%d valid bits)\n",
		l.MaxMemoryAllocationSize, l.MinStorageBufferOffsetAlignment, l.TimestampPeriod, l.TimestampValidBits)
	// The texel limits decide whether vec-row may read through a texel
	// buffer (the CPU class's fast load path, ops/check.go).
	fmt.Fprintf(w, "            maxTexelBufferElements %d, minTexelBufferOffsetAlignment %d\n",
		l.MaxTexelBufferElements, l.MinTexelBufferOffsetAlignment)
	for i, m := range r.MemoryTypes {
		fmt.Fprintf(w, "    memory type %d: %s, heap %d (%.1f GiB)\n", i, m.Describe(), m.Heap, float64(m.HeapSize)/(1<<30))
	}
	fmt.Fprintf(w, "    vkdml: feature level %s, data types %s\n", r.FeatureLevel, strings.Join(r.DataTypes, " "))
}
