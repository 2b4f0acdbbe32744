package ops_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/descfuzz"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/tensor"
)

// subgroupFreeOps are the operators whose plans and kernels do not depend
// on the subgroup size: make test's reruns at lavapipe's subgroup sizes 4
// and 16 leave their random sweep out (the Makefile's WIDTH_SKIP,
// TestTopKRandom) and run their other tests. TestSubgroupFreePlans is what
// makes that safe. One strategy is the exception: TOP_K's maxima kernel
// (topk_maxima.comp) is one full subgroup a workgroup by design, its
// counts subgroupAdd, so its plans follow the subgroup size; its own
// tests (TestTopKMaxima, TestTopKMaximaThreshold) run at every size,
// outside WIDTH_SKIP.
var subgroupFreeOps = []string{"TOP_K", "TOP_K1", "MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2", "MAX_UNPOOLING", "ELEMENT_WISE_IDENTITY"}

// TestSubgroupFreePlans: the plans of subgroupFreeOps (the golden corpus'
// descs and two identities, on the planner's choice and each strategy
// forced) are the same at subgroup sizes 4, 8 and 16, and run no kernel
// variant built with SUBGROUP=1. A planner or kernel of these operators
// that starts to depend on the subgroup size fails here: then its random
// sweep must run at every width again (empty the Makefile's WIDTH_SKIP).
// Plans of the maxima strategy (subgroupFreeOps) are left out.
func TestSubgroupFreePlans(t *testing.T) {
	var descs []ops.Desc
	for _, c := range readGoldenCases(t) {
		if slices.Contains(subgroupFreeOps, c.Op) {
			descs = append(descs, c.desc(t))
		}
	}
	for _, n := range []uint32{1000, 1 << 20} {
		d := tensor.NewDesc(tensor.Float32, []uint32{n})
		descs = append(descs, &ops.ElementWiseIdentity{Input: d, Output: d})
	}
	seen := map[string]bool{}
	for _, desc := range descs {
		seen[desc.OperatorType()] = true
		for _, kernel := range append([]string{""}, strategiesOf(desc)...) {
			var dumps [3]bytes.Buffer
			maxima := false
			for i, sg := range []uint32{4, 8, 16} {
				ctx := descfuzz.Lavapipe()
				ctx.Limits.SubgroupSize, ctx.Kernel = sg, kernel
				if err := dumpPlan(&dumps[i], "case", ctx, desc); err != nil {
					t.Errorf("%s %q at subgroup size %d: CheckPlan: %v", desc.OperatorType(), kernel, sg, err)
				}
				if err := desc.Validate(ctx); err != nil {
					continue
				}
				p, err := desc.Plan(ctx)
				if err != nil {
					continue
				}
				if p.Strategy == ops.TopKStrategyMaxima {
					maxima = true
					continue
				}
				for _, k := range p.Kernels {
					row, _ := shaders.Lookup(k.Variant)
					if k.SubgroupSize != 0 || slices.Contains(row.Defines, "SUBGROUP=1") {
						t.Errorf("%s %q at subgroup size %d runs %s (subgroup size %d, defines %v): a subgroup kernel",
							desc.OperatorType(), kernel, sg, k.Variant, k.SubgroupSize, row.Defines)
					}
				}
			}
			if !maxima && kernel != ops.TopKStrategyMaxima && (dumps[0].String() != dumps[1].String() || dumps[2].String() != dumps[1].String()) {
				t.Errorf("%s %q: the plan depends on the subgroup size:\n4: %s\n8: %s\n16: %s", desc.OperatorType(), kernel,
					strings.TrimSpace(dumps[0].String()), strings.TrimSpace(dumps[1].String()), strings.TrimSpace(dumps[2].String()))
			}
		}
	}
	for _, op := range subgroupFreeOps {
		if !seen[op] {
			t.Errorf("no case of %s", op)
		}
	}
}
