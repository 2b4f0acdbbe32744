package opcount

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/vkdml/vkdml/ops"
)

// ErrNoTools is Available's error when spirv-opt or spirv-dis, which the
// count runs, is not installed.
var ErrNoTools = errors.New("opcount: spirv-opt and spirv-dis (SPIRV-Tools) are needed to count a kernel's ops")

// Available reports whether kernels can be counted here: spirv-opt and
// spirv-dis are on the PATH.
func Available() error {
	for _, tool := range []string{"spirv-opt", "spirv-dis"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrNoTools, tool, err)
		}
	}
	return nil
}

// StepCount is one step of a plan counted: its kernel's ops per unit of
// work and per byte the step moves.
type StepCount struct {
	Kernel  string
	Unit    string
	PerUnit float64
	// OpsPerByte is PerUnit times the step's units over the bytes it
	// reads and writes, partials included: the ratio the budget holds.
	OpsPerByte float64
}

// cache holds counts by variant and specialization constants: a count
// runs spirv-opt, and plans repeat kernels.
var cache = struct {
	sync.Mutex
	m map[string]countResult
}{m: map[string]countResult{}}

type countResult struct {
	n    float64
	unit Unit
	err  error
}

// countCached is Count, remembered.
func countCached(variant string, spec []uint32) (float64, Unit, error) {
	var key strings.Builder
	key.WriteString(variant)
	for _, s := range spec {
		key.WriteByte(' ')
		key.WriteString(strconv.FormatUint(uint64(s), 10))
	}
	cache.Lock()
	r, ok := cache.m[key.String()]
	cache.Unlock()
	if !ok {
		r.n, r.unit, r.err = Count(variant, spec)
		cache.Lock()
		cache.m[key.String()] = r
		cache.Unlock()
	}
	return r.n, r.unit, r.err
}

// Plan counts every step of p, whose facts are f: the kernel specialised
// as the step specialises it, per unit and per byte moved. It fails when
// a kernel's unit in opcount's family table is not the unit its facts
// function counts work in.
func Plan(p *ops.Plan, f *ops.PlanFacts) ([]StepCount, error) {
	if len(f.Dispatches) != len(p.Steps) {
		return nil, fmt.Errorf("opcount: %d steps, facts for %d", len(p.Steps), len(f.Dispatches))
	}
	out := make([]StepCount, len(p.Steps))
	for i, st := range p.Steps {
		k := p.Kernels[st.Kernel]
		n, unit, err := countCached(k.Variant, k.Spec)
		if err != nil {
			return nil, fmt.Errorf("dispatch %d: %w", i, err)
		}
		df := f.Dispatches[i]
		if unit.Name != df.Unit {
			return nil, fmt.Errorf("opcount: dispatch %d: %s is counted per %s, its facts count %s", i, k.Variant, unit.Name, df.Unit)
		}
		c := StepCount{Kernel: k.Variant, Unit: unit.Name, PerUnit: n}
		if moved := df.BytesMoved(); moved > 0 {
			c.OpsPerByte = n * float64(df.Units) / float64(moved)
		}
		out[i] = c
	}
	return out, nil
}
