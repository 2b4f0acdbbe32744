package ops

import "fmt"

// StepValues returns step i of p's specialization constants and push
// words by the names its kernel's row gives them (what `vkdml plan`
// prints).
func StepValues(p *Plan, i int) (spec, push map[string]uint32, err error) {
	if i < 0 || i >= len(p.Steps) {
		return nil, nil, fmt.Errorf("ops: plan has no step %d", i)
	}
	st := p.Steps[i]
	if st.Kernel < 0 || st.Kernel >= len(p.Kernels) {
		return nil, nil, fmt.Errorf("ops: step %d names kernel %d of %d", i, st.Kernel, len(p.Kernels))
	}
	v, err := newStepValues(p.Kernels[st.Kernel], st)
	if err != nil {
		return nil, nil, fmt.Errorf("ops: step %d: %w", i, err)
	}
	return v.spec, v.push, nil
}
