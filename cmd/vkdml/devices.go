package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/tensor"
)

// deviceReport is one device in `vkdml devices --json`.
type deviceReport struct {
	*gpu.DeviceInfo
	Default      bool     `json:"default"`
	Usable       bool     `json:"usable"`
	FeatureLevel string   `json:"featureLevel,omitempty"`
	DataTypes    []string `json:"dataTypes,omitempty"`
	SubgroupOps  []string `json:"subgroupOperationNames"`
}

var subgroupOpNames = []struct {
	bit  uint32
	name string
}{
	{gpu.SubgroupBasic, "basic"}, {gpu.SubgroupVote, "vote"}, {gpu.SubgroupArithmetic, "arithmetic"},
	{gpu.SubgroupBallot, "ballot"}, {gpu.SubgroupShuffle, "shuffle"}, {gpu.SubgroupShuffleRelative, "shuffle-relative"},
	{gpu.SubgroupClustered, "clustered"}, {gpu.SubgroupQuad, "quad"},
}

func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("devices", "devices [--json] [--device SEL]", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	sel := fs.String("device", "", "selector used to mark the default (index or name substring; default $VKDML_DEVICE)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	infos, def, err := gpu.Enumerate(*sel)
	if err != nil {
		return err
	}
	reports := make([]deviceReport, len(infos))
	for i, info := range infos {
		r := deviceReport{DeviceInfo: info, Default: i == def, Usable: info.Usable() == ""}
		if r.Usable {
			r.FeatureLevel = dml.MaxFeatureLevel.String()
			for _, dt := range tensor.AllTypes {
				r.DataTypes = append(r.DataTypes, dt.String())
			}
		}
		for _, op := range subgroupOpNames {
			if info.Limits.SubgroupOperations&op.bit != 0 {
				r.SubgroupOps = append(r.SubgroupOps, op.name)
			}
		}
		reports[i] = r
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reports)
	}
	if len(reports) == 0 {
		fmt.Fprintln(stdout, "no Vulkan devices")
		return nil
	}
	for _, r := range reports {
		printDevice(stdout, r)
	}
	return nil
}

func onOff(name string, v bool) string {
	if v {
		return name
	}
	return "!" + name
}

func printDevice(w io.Writer, r deviceReport) {
	mark := " "
	if r.Default {
		mark = "*"
	}
	l, f := r.Limits, r.Features
	fmt.Fprintf(w, "%s %d: %s (%s)\n", mark, r.Index, r.Name, r.TypeName)
	fmt.Fprintf(w, "    Vulkan %s, driver %s %s, vendor %#04x device %#04x, uuid %s\n", r.API, r.DriverName, r.DriverInfo, r.VendorID, r.DeviceID, r.UUID)
	if why := r.DeviceInfo.Usable(); why != "" {
		fmt.Fprintf(w, "    not usable: %s\n", why)
		return
	}
	fmt.Fprintf(w, "    subgroup size %d (min %d, max %d), operations: %s\n", l.SubgroupSize, l.MinSubgroupSize, l.MaxSubgroupSize, strings.Join(r.SubgroupOps, " "))
	fmt.Fprintf(w, "    features: %s\n", strings.Join([]string{
		onOff("shaderInt64", f.ShaderInt64), onOff("shaderInt16", f.ShaderInt16), onOff("shaderInt8", f.ShaderInt8),
		onOff("shaderFloat16", f.ShaderFloat16), onOff("storageBuffer8BitAccess", f.StorageBuffer8Bit),
		onOff("storageBuffer16BitAccess", f.StorageBuffer16Bit), onOff("subgroupArithmetic", f.SubgroupArithmetic),
		onOff("subgroupSizeControl", f.SubgroupSizeControl), onOff("computeFullSubgroups", f.ComputeFullSubgroups),
	}, " "))
	fmt.Fprintf(w, "    limits: maxStorageBufferRange %d, maxComputeSharedMemorySize %d, maxComputeWorkGroupInvocations %d,\n",
		l.MaxStorageBufferRange, l.MaxComputeSharedMemorySize, l.MaxComputeWorkGroupInvocations)
	fmt.Fprintf(w, "            maxComputeWorkGroupSize %v, maxComputeWorkGroupCount %v, maxPushConstantsSize %d,\n",
		l.MaxComputeWorkGroupSize, l.MaxComputeWorkGroupCount, l.MaxPushConstantsSize)
	fmt.Fprintf(w, "            maxMemoryAllocationSize %d, minStorageBufferOffsetAlignment %d, timestampPeriod %g ns (%d valid bits)\n",
		l.MaxMemoryAllocationSize, l.MinStorageBufferOffsetAlignment, l.TimestampPeriod, l.TimestampValidBits)
	for i, m := range r.MemoryTypes {
		fmt.Fprintf(w, "    memory type %d: %s, heap %d (%.1f GiB)\n", i, m.Describe(), m.Heap, float64(m.HeapSize)/(1<<30))
	}
	fmt.Fprintf(w, "    vkdml: feature level %s, data types %s\n", r.FeatureLevel, strings.Join(r.DataTypes, " "))
}
