// Package profiles holds the devices vkdml can plan for without having
// them: each profile is what `vkdml devices --json` prints for one device
// (its type, features and limits, the compute units among them), shipped
// in this directory as NAME.json and chosen by `vkdml plan --profile NAME`.
// A profile can also be read from a file: a device object, or a whole
// `vkdml devices --json` document (its default device).
//
// The shipped profiles and where their numbers come from are listed in
// README.md here.
package profiles

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/vkdml/vkdml/caps"
	"github.com/vkdml/vkdml/internal/safefile"
)

//go:embed *.json
var shipped embed.FS

// Profile is one device as planners see it.
type Profile struct {
	// Name is the short name of a shipped profile, or the file it was
	// read from.
	Name string
	// Device is the device's name, as the driver reports it.
	Device   string
	Type     caps.DeviceType
	Features caps.Features
	Limits   caps.Limits
	// ComputeUnitSource is the extension the compute-unit count comes
	// from on the device; empty where the driver reports none and the
	// count comes from the vendor's documentation (README.md).
	ComputeUnitSource string
}

// Names lists the shipped profiles' short names, sorted.
func Names() []string {
	entries, _ := shipped.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Lookup returns the shipped profile called name.
func Lookup(name string) (*Profile, error) {
	b, err := shipped.ReadFile(name + ".json")
	if err != nil || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("no shipped profile %q (shipped: %s)", name, strings.Join(Names(), ", "))
	}
	return Parse(name, b)
}

// MaxFileSize bounds a profile file: a `vkdml devices --json` device
// object is a few KiB (the shipped profiles are under 2 KiB), so 1 MiB
// leaves room for any device's limits and extensions.
const MaxFileSize = 1 << 20

// Load returns the shipped profile called nameOrFile, or else reads the
// file of that name.
func Load(nameOrFile string) (*Profile, error) {
	if _, err := shipped.ReadFile(nameOrFile + ".json"); err == nil && !strings.ContainsAny(nameOrFile, "/\\") {
		return Lookup(nameOrFile)
	}
	b, err := safefile.ReadFile(nameOrFile, MaxFileSize)
	if err != nil {
		if os.IsNotExist(err) && path.Ext(nameOrFile) == "" {
			return nil, fmt.Errorf("profile %q: neither a shipped profile (%s) nor a file", nameOrFile, strings.Join(Names(), ", "))
		}
		return nil, fmt.Errorf("profile: %w", err)
	}
	return Parse(nameOrFile, b)
}

// device is the part of a `vkdml devices --json` device object a profile
// reads; its other keys (driver, memory types, ...) are ignored.
type device struct {
	Name              string                     `json:"name"`
	Type              string                     `json:"type"`
	Features          map[string]json.RawMessage `json:"features"`
	Limits            map[string]json.RawMessage `json:"limits"`
	ComputeUnitSource string                     `json:"compute_unit_source"`
}

// Parse reads a profile: a device object of `vkdml devices --json`, or
// the whole document, whose default device it takes. Keys of features and
// limits it does not know are errors, as are values of the wrong type and
// limits no planner can work with.
func Parse(name string, data []byte) (*Profile, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("profile %s: %s", name, fmt.Sprintf(format, args...))
	}
	var doc struct {
		Default *int              `json:"default"`
		Devices []json.RawMessage `json:"devices"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fail("%v", err)
	}
	raw := json.RawMessage(data)
	if doc.Devices != nil {
		if doc.Default == nil || *doc.Default < 0 || *doc.Default >= len(doc.Devices) {
			return nil, fail("a devices document needs a \"default\" index of one of its %d devices", len(doc.Devices))
		}
		raw = doc.Devices[*doc.Default]
	}
	var d device
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fail("%v", err)
	}
	p := &Profile{Name: name, Device: d.Name, ComputeUnitSource: d.ComputeUnitSource}
	var ok bool
	if p.Type, ok = parseType(d.Type); !ok {
		return nil, fail("type %q is not one of discrete-gpu, integrated-gpu, virtual-gpu, cpu, other", d.Type)
	}
	if d.Limits == nil {
		return nil, fail("limits are required")
	}
	if err := setFields(&p.Features, d.Features, "features"); err != nil {
		return nil, fail("%v", err)
	}
	if err := setFields(&p.Limits, d.Limits, "limits"); err != nil {
		return nil, fail("%v", err)
	}
	if err := check(p.Limits); err != nil {
		return nil, fail("%v", err)
	}
	return p, nil
}

func parseType(s string) (caps.DeviceType, bool) {
	for t := caps.DeviceTypeOther; t <= caps.DeviceTypeCPU; t++ {
		if t.String() == s {
			return t, true
		}
	}
	return 0, false
}

// setFields sets the fields of the struct dst points to from m, whose
// keys are the fields' JSON names in snake_case, as `vkdml devices
// --json` writes them. Fields m leaves out stay 0 (false).
func setFields(dst any, m map[string]json.RawMessage, what string) error {
	v := reflect.ValueOf(dst).Elem()
	known := map[string]int{}
	for i := 0; i < v.NumField(); i++ {
		tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		known[SnakeCase(tag)] = i
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		i, ok := known[k]
		if !ok {
			return fmt.Errorf("%s.%s is not a key vkdml knows", what, k)
		}
		dec := json.NewDecoder(bytes.NewReader(m[k]))
		if err := dec.Decode(v.Field(i).Addr().Interface()); err != nil {
			return fmt.Errorf("%s.%s: %s is not a %s", what, k, m[k], v.Field(i).Type())
		}
	}
	return nil
}

// check refuses limits under which no plan can be made, and those no
// Vulkan device reports, naming the key: the bounds are Vulkan's required
// limits (subgroups of 1 to 128 lanes, a power of two; workgroups of 128
// invocations and grids of 65535 workgroups a dimension at least) or what
// every kernel needs (64 KiB bindings, 4 storage buffers); the upper bounds of the
// rest are their uint32 and uint64 types, which planners take in uint64
// arithmetic (TestExtremeLimitsPlan plans at both ends).
func check(l caps.Limits) error {
	pow2 := func(x uint32) bool { return x > 0 && x&(x-1) == 0 }
	const maxSubgroup = 128 // Vulkan: subgroupSize and maxSubgroupSize are at most 128
	switch {
	case !pow2(l.SubgroupSize) || l.SubgroupSize > maxSubgroup:
		return fmt.Errorf("limits.subgroup_size %d is not a power of two in [1, %d]", l.SubgroupSize, maxSubgroup)
	case l.MinSubgroupSize != 0 && (!pow2(l.MinSubgroupSize) || l.MinSubgroupSize > l.SubgroupSize):
		return fmt.Errorf("limits.min_subgroup_size %d is not a power of two at most subgroup_size %d", l.MinSubgroupSize, l.SubgroupSize)
	case l.MaxSubgroupSize != 0 && (!pow2(l.MaxSubgroupSize) || l.MaxSubgroupSize < l.SubgroupSize || l.MaxSubgroupSize > maxSubgroup):
		return fmt.Errorf("limits.max_subgroup_size %d is not a power of two in [subgroup_size %d, %d]", l.MaxSubgroupSize, l.SubgroupSize, maxSubgroup)
	case l.MaxStorageBufferRange < 1<<16:
		return fmt.Errorf("limits.max_storage_buffer_range %d is below 65536", l.MaxStorageBufferRange)
	case l.MaxComputeWorkGroupInvocations < 128 || l.MaxComputeWorkGroupSize[0] < 128 || l.MaxComputeWorkGroupSize[1] < 128 || l.MaxComputeWorkGroupSize[2] < 64:
		return fmt.Errorf("limits.max_compute_work_group_invocations %d and max_compute_work_group_size %v are below Vulkan's minimums of 128 and [128 128 64]",
			l.MaxComputeWorkGroupInvocations, l.MaxComputeWorkGroupSize)
	case l.MaxComputeWorkGroupCount[0] < 65535 || l.MaxComputeWorkGroupCount[1] < 65535 || l.MaxComputeWorkGroupCount[2] < 65535:
		return fmt.Errorf("limits.max_compute_work_group_count %v is below Vulkan's minimum of 65535 each", l.MaxComputeWorkGroupCount)
	case l.MaxPushConstantsSize < 128:
		return fmt.Errorf("limits.max_push_constants_size %d is below Vulkan's minimum of 128", l.MaxPushConstantsSize)
	case !pow2(uint32(l.MinStorageBufferOffsetAlignment)) || l.MinStorageBufferOffsetAlignment > 256:
		return fmt.Errorf("limits.min_storage_buffer_offset_alignment %d is not a power of two at most 256", l.MinStorageBufferOffsetAlignment)
	case l.MaxComputeSharedMemorySize < 16384:
		return fmt.Errorf("limits.max_compute_shared_memory_size %d is below Vulkan's minimum of 16384", l.MaxComputeSharedMemorySize)
	case l.MaxPerStageStorageBuffers < 4:
		return fmt.Errorf("limits.max_per_stage_descriptor_storage_buffers %d is below Vulkan's minimum of 4", l.MaxPerStageStorageBuffers)
	case (l.ComputeUnits == 0) != (l.LanesPerComputeUnit == 0):
		return fmt.Errorf("limits.compute_units %d and lanes_per_compute_unit %d must both be known or both 0", l.ComputeUnits, l.LanesPerComputeUnit)
	}
	return nil
}

// SnakeCase turns a camelCase JSON name (with acronyms: vendorID,
// deviceUUID) into snake_case (vendor_id, device_uuid), the one key style
// of the command's JSON.
func SnakeCase(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		upper := unicode.IsUpper(c)
		if upper && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
