package dml

import (
	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/tensor"
)

// DeviceReport is one Vulkan device as vkdml lists it: `vkdml devices
// --json` (its keys in snake_case), libvkdml's vkdml_devices_json (Vulkan's
// camelCase) and Python's vkdml.devices() (snake_case again) all print
// this one struct, so that they list the same fields with the same values.
type DeviceReport struct {
	*gpu.DeviceInfo
	Default bool `json:"default"`
	Usable  bool `json:"usable"`
	// UnusableBecause says why vkdml cannot run on the device; empty
	// when it can.
	UnusableBecause string `json:"unusable_because,omitempty"`
	// FeatureLevel and DataTypes are what vkdml supports on a usable
	// device: its highest DirectML feature level ("6_4") and the tensor
	// data types by DirectML's names.
	FeatureLevel string   `json:"featureLevel,omitempty"`
	DataTypes    []string `json:"dataTypes,omitempty"`
	// SubgroupOperationNames spells Limits.SubgroupOperations' bits.
	SubgroupOperationNames []string `json:"subgroupOperationNames"`
}

// subgroupOperationNames names the bits of caps.Limits.SubgroupOperations.
var subgroupOperationNames = []struct {
	bit  uint32
	name string
}{
	{caps.SubgroupBasic, "basic"}, {caps.SubgroupVote, "vote"}, {caps.SubgroupArithmetic, "arithmetic"},
	{caps.SubgroupBallot, "ballot"}, {caps.SubgroupShuffle, "shuffle"}, {caps.SubgroupShuffleRelative, "shuffle-relative"},
	{caps.SubgroupClustered, "clustered"}, {caps.SubgroupQuad, "quad"},
}

// DeviceReports lists every Vulkan device vkdml can see, in the loader's
// order, and the index of the one CreateDevice would open with the same
// selector (an index or a name substring; "" for $VKDML_DEVICE, then the
// best usable device); -1 when none is usable.
func DeviceReports(selector string) ([]DeviceReport, int, error) {
	infos, def, err := gpu.Enumerate(selector)
	if err != nil {
		return nil, -1, err
	}
	reports := make([]DeviceReport, len(infos))
	for i, info := range infos {
		why := info.Usable()
		r := DeviceReport{DeviceInfo: info, Default: i == def, Usable: why == "", UnusableBecause: why, SubgroupOperationNames: []string{}}
		if r.Usable {
			r.FeatureLevel = MaxFeatureLevel.String()
			for _, dt := range tensor.AllTypes {
				r.DataTypes = append(r.DataTypes, dt.String())
			}
		}
		for _, op := range subgroupOperationNames {
			if info.Limits.SubgroupOperations&op.bit != 0 {
				r.SubgroupOperationNames = append(r.SubgroupOperationNames, op.name)
			}
		}
		reports[i] = r
	}
	return reports, def, nil
}
