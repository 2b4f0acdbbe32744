package opcount

import (
	"fmt"
	"strconv"
	"strings"
)

// inst is one instruction of a disassembly: its result id (empty when it
// has none), opcode and operands (the result type first, where it has one).
type inst struct {
	result, op string
	args       []string
}

// block is one basic block: its instructions, its terminator and its
// structured-control-flow merge declarations.
type block struct {
	label               string
	body                []inst
	term                inst
	selMerge            string
	loopMerge, loopCont string
}

// succs are the blocks b's terminator branches to.
func (b *block) succs() []string {
	switch b.term.op {
	case "OpBranch":
		return b.term.args[:1]
	case "OpBranchConditional":
		return b.term.args[1:3]
	case "OpSwitch":
		var out []string
		out = append(out, b.term.args[1])
		for i := 3; i < len(b.term.args); i += 2 {
			out = append(out, b.term.args[i])
		}
		return out
	}
	return nil
}

// module is what the count needs of a disassembled module: main's blocks,
// the types' component counts and sizes, the integer constants, every
// definition, and the variables bound at binding 0.
type module struct {
	blocks map[string]*block
	order  []string
	comps  map[string]int // type -> components (vectors), 1 for scalars
	bytes  map[string]int // type -> bytes
	consts map[string]uint64
	defs   map[string]inst
	src    map[string]bool
	// dataTrips is what a loop that is not counted costs in trips
	// (Unit.DataTrips); 0: such a loop is an error.
	dataTrips float64
}

func parse(text string) (*module, error) {
	m := &module{blocks: map[string]*block{}, comps: map[string]int{}, bytes: map[string]int{},
		consts: map[string]uint64{}, defs: map[string]inst{}, src: map[string]bool{}}
	var mainID string
	binding0, set0 := map[string]bool{}, map[string]bool{}
	var cur *block
	inMain := false
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], ";") {
			continue
		}
		var in inst
		if len(f) >= 3 && f[1] == "=" {
			in = inst{result: f[0], op: f[2], args: f[3:]}
		} else {
			in = inst{op: f[0], args: f[1:]}
		}
		if in.result != "" {
			m.defs[in.result] = in
		}
		switch in.op {
		case "OpEntryPoint":
			if len(in.args) >= 2 {
				mainID = in.args[1]
			}
		case "OpDecorate":
			if len(in.args) >= 3 && in.args[1] == "Binding" && in.args[2] == "0" {
				binding0[in.args[0]] = true
			}
			if len(in.args) >= 3 && in.args[1] == "DescriptorSet" && in.args[2] == "0" {
				set0[in.args[0]] = true
			}
		case "OpTypeInt", "OpTypeFloat":
			w, _ := strconv.Atoi(in.args[0])
			m.comps[in.result], m.bytes[in.result] = 1, w/8
		case "OpTypeBool":
			m.comps[in.result], m.bytes[in.result] = 1, 4
		case "OpTypeVector":
			n, _ := strconv.Atoi(in.args[1])
			m.comps[in.result], m.bytes[in.result] = n, n*m.bytes[in.args[0]]
		case "OpConstant":
			if v, err := strconv.ParseUint(in.args[1], 10, 64); err == nil {
				m.consts[in.result] = v
			}
		case "OpFunction":
			inMain = in.result == mainID
		case "OpFunctionEnd":
			inMain = false
		}
		if !inMain {
			continue
		}
		switch in.op {
		case "OpLabel":
			cur = &block{label: in.result}
			m.blocks[cur.label] = cur
			m.order = append(m.order, cur.label)
		case "OpSelectionMerge":
			cur.selMerge = in.args[0]
		case "OpLoopMerge":
			cur.loopMerge, cur.loopCont = in.args[0], in.args[1]
		case "OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill", "OpUnreachable", "OpTerminateInvocation":
			cur.term = in
		case "OpFunction", "OpFunctionParameter":
		default:
			if cur != nil {
				cur.body = append(cur.body, in)
			}
		}
	}
	for v := range binding0 {
		if set0[v] {
			m.src[v] = true
		}
	}
	if len(m.order) == 0 {
		return nil, fmt.Errorf("no main function in the disassembly")
	}
	return m, nil
}

// free are the instructions a GPU compiler turns into no work of their
// own: moves, renames and control flow.
var free = map[string]bool{
	"OpPhi": true, "OpCompositeExtract": true, "OpCompositeConstruct": true, "OpVectorShuffle": true,
	"OpCopyObject": true, "OpBitcast": true, "OpUndef": true, "OpNop": true, "OpLine": true, "OpNoLine": true,
}

// weight is what one instruction counts: 1 for a memory access or an
// address, a value's components for arithmetic and logic.
func (m *module) weight(in inst) float64 {
	switch {
	case free[in.op]:
		return 0
	case in.op == "OpLoad" || in.op == "OpStore" || in.op == "OpAccessChain" || in.op == "OpInBoundsAccessChain" ||
		in.op == "OpImageFetch" || in.op == "OpImageRead" || strings.HasPrefix(in.op, "OpAtomic") || in.op == "OpControlBarrier" || in.op == "OpMemoryBarrier":
		return 1
	case in.result == "" || len(in.args) == 0:
		return 1
	}
	if n := m.comps[in.args[0]]; n > 0 {
		return float64(n)
	}
	return 1
}

func (m *module) own(b *block) float64 {
	var w float64
	for _, in := range b.body {
		w += m.weight(in)
	}
	return w
}

// srcBytes is the bytes b loads from binding 0: storage-buffer loads,
// and texel fetches of a texel buffer bound there (lavapipe's texel
// plans read their source so).
func (m *module) srcBytes(b *block) float64 {
	var n float64
	for _, in := range b.body {
		if (in.op == "OpLoad" && m.fromSrc(in.args[1], 0)) ||
			((in.op == "OpImageFetch" || in.op == "OpImageRead") && m.imageFromSrc(in.args[1])) {
			n += float64(m.bytes[in.args[0]])
		}
	}
	return n
}

// imageFromSrc says whether image is the texel buffer bound at binding 0:
// a load of it, or OpImage of such a load (a sampled texel buffer).
func (m *module) imageFromSrc(image string) bool {
	d, ok := m.defs[image]
	if ok && d.op == "OpImage" {
		d, ok = m.defs[d.args[1]]
	}
	return ok && d.op == "OpLoad" && m.src[d.args[1]]
}

func (m *module) fromSrc(ptr string, depth int) bool {
	if m.src[ptr] {
		return true
	}
	d, ok := m.defs[ptr]
	if !ok || depth > 8 || (d.op != "OpAccessChain" && d.op != "OpInBoundsAccessChain" && d.op != "OpPtrAccessChain") {
		return false
	}
	return m.fromSrc(d.args[1], depth+1)
}

// loopBlocks is the blocks of the loop headed by h: those reachable from
// it without passing its merge or coming back to it.
func (m *module) loopBlocks(h *block) map[string]bool {
	in := map[string]bool{h.label: true}
	stack := []string{h.label}
	for len(stack) > 0 {
		b := m.blocks[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		for _, s := range b.succs() {
			if s == h.loopMerge || in[s] || m.blocks[s] == nil {
				continue
			}
			in[s] = true
			stack = append(stack, s)
		}
	}
	return in
}

// hotLoop is the cost of one iteration of the hot loop (the outermost
// loop, or the deepest loop that loads source bytes, the one loading the
// most of equals: a loop around it loads once per pass, such as a first
// element or the value a MAX reads back, not per element) and the source
// bytes that iteration loads.
func (m *module) hotLoop(outermost bool) (cost, loaded float64, err error) {
	var headers []*block
	bodies := map[string]map[string]bool{}
	for _, l := range m.order {
		if b := m.blocks[l]; b.loopMerge != "" {
			headers = append(headers, b)
			bodies[l] = m.loopBlocks(b)
		}
	}
	depth := func(h *block) int {
		d := 0
		for _, o := range headers {
			if o != h && bodies[o.label][h.label] {
				d++
			}
		}
		return d
	}
	var best *block
	var bestBytes float64
	for _, h := range headers {
		// The loop's own blocks: its body minus inner loops' bodies.
		var bytes float64
		for l := range bodies[h.label] {
			inner := false
			for _, o := range headers {
				if o != h && bodies[h.label][o.label] && bodies[o.label][l] {
					inner = true
				}
			}
			if !inner {
				bytes += m.srcBytes(m.blocks[l])
			}
		}
		switch {
		case outermost:
			if depth(h) == 0 && (best == nil || bytes > 0 && bestBytes == 0) {
				best, bestBytes = h, bytes
			}
		case bytes > 0 && (bestBytes == 0 || depth(h) > depth(best) || depth(h) == depth(best) && bytes > bestBytes):
			best, bestBytes = h, bytes
		case best == nil:
			best = h
		}
	}
	if best == nil {
		return 0, 0, fmt.Errorf("no loop loads from binding 0")
	}
	if outermost {
		bestBytes = 0
		for l := range bodies[best.label] {
			bestBytes += m.srcBytes(m.blocks[l])
		}
	}
	cost, err = m.iteration(best, nil)
	return cost, bestBytes, err
}

// iteration is the cost of one iteration of the loop headed by h: its
// header and the cheapest way back to it. exits are the merges of the
// loops around it.
func (m *module) iteration(h *block, exits map[string]bool) (float64, error) {
	stops := map[string]bool{h.label: true, h.loopMerge: true}
	for e := range exits {
		stops[e] = true
	}
	c := m.own(h)
	var inside []string
	for _, s := range h.succs() {
		if s != h.loopMerge {
			inside = append(inside, s)
		}
	}
	if len(inside) != 1 {
		return 0, fmt.Errorf("loop %s: %d ways into its body", h.label, len(inside))
	}
	rest, err := m.walk(inside[0], stops, exitsWith(exits, h.loopMerge))
	return c + rest, err
}

func exitsWith(exits map[string]bool, merge string) map[string]bool {
	out := map[string]bool{merge: true}
	for e := range exits {
		out[e] = true
	}
	return out
}

// walk is the cost from block b to the first of stops, along the path the
// common case takes: an if with no else is skipped (the kernels' ifs in
// hot loops guard rare updates: a new maximum), an if/else takes its then
// arm (the common case the kernels test first: max pooling's interior
// window before the border's), a branch out of the loop (a break) is not
// the common path, and an inner loop costs its trip count times one
// iteration.
func (m *module) walk(b string, stops, exits map[string]bool) (float64, error) {
	var total float64
	for steps := 0; !stops[b]; steps++ {
		blk := m.blocks[b]
		if blk == nil || steps > 100000 {
			return 0, fmt.Errorf("block %s: not a block of main, or no way out", b)
		}
		if blk.loopMerge != "" {
			trip, err := m.trips(blk)
			if err != nil {
				return 0, err
			}
			it, err := m.iteration(blk, exits)
			if err != nil {
				return 0, err
			}
			total += trip * it
			b = blk.loopMerge
			continue
		}
		total += m.own(blk)
		succ := blk.succs()
		switch {
		case len(succ) == 0:
			return total, nil
		case len(succ) == 1:
			b = succ[0]
			continue
		}
		merge := blk.selMerge
		var arms []string
		for _, s := range succ {
			if merge == "" && exits[s] {
				continue // a break
			}
			arms = append(arms, s)
		}
		if len(arms) == 0 {
			return total, nil
		}
		inner := map[string]bool{}
		for s := range stops {
			inner[s] = true
		}
		if merge != "" {
			inner[merge] = true
		}
		// The then arm: the first target of a conditional branch, the
		// first case of a switch; none when an arm skips to the merge.
		taken := arms[0]
		for _, a := range arms {
			if a == merge {
				taken = ""
			}
		}
		if taken != "" {
			c, err := m.walk(taken, inner, exits)
			if err != nil {
				return 0, err
			}
			total += c
		}
		if merge == "" {
			return total, nil
		}
		b = merge
	}
	return total, nil
}

// trips is the iterations of the loop headed by h: its trip count where it
// is a counted loop, else the unit's mean trips of a data-dependent loop
// where it gives one.
func (m *module) trips(h *block) (float64, error) {
	n, err := m.tripCount(h)
	if err != nil && m.dataTrips > 0 {
		return m.dataTrips, nil
	}
	return float64(n), err
}

// tripCount is the iterations of a counted loop: its header compares a
// counter (a phi of a constant start and itself plus a constant step)
// with a constant bound.
func (m *module) tripCount(h *block) (uint64, error) {
	fail := func(why string) (uint64, error) {
		return 0, fmt.Errorf("loop %s inside the hot loop: %s, so its trip count is unknown", h.label, why)
	}
	if h.term.op != "OpBranchConditional" {
		return fail("its header does not branch on a condition")
	}
	cond, ok := m.defs[h.term.args[0]]
	if !ok || len(cond.args) < 3 {
		return fail("no comparison")
	}
	exitOnTrue := h.term.args[1] == h.loopMerge
	x, y := cond.args[1], cond.args[2]
	phi, bound := x, y
	if _, isConst := m.consts[x]; isConst {
		phi, bound = y, x
	}
	bv, ok := m.consts[bound]
	if !ok {
		return fail("its bound is not a constant")
	}
	p, ok := m.defs[phi]
	if !ok || p.op != "OpPhi" || len(p.args) != 5 {
		return fail("its counter is not a phi of two values")
	}
	var start, step uint64
	found := false
	for i := 1; i+1 < len(p.args); i += 2 {
		if v, ok := m.consts[p.args[i]]; ok {
			start = v
			continue
		}
		if d, ok := m.defs[p.args[i]]; ok && d.op == "OpIAdd" {
			for _, a := range d.args[1:] {
				if v, ok := m.consts[a]; ok {
					step, found = v, true
				}
			}
		}
	}
	if !found || step == 0 {
		return fail("its counter does not step by a constant")
	}
	switch {
	case !exitOnTrue && (cond.op == "OpULessThan" || cond.op == "OpSLessThan" || cond.op == "OpINotEqual"),
		exitOnTrue && (cond.op == "OpUGreaterThanEqual" || cond.op == "OpSGreaterThanEqual" || cond.op == "OpIEqual"):
		if bv <= start {
			return 0, nil
		}
		return (bv - start + step - 1) / step, nil
	}
	return fail("its condition is " + cond.op)
}
