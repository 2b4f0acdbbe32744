package parity

import (
	"fmt"
	"math"
)

// Verdicts of REDUCE's floating-point functions, whose answers may differ
// from DirectML's by a bound (docs/semantics.md rule 44). Equal is the
// same bits (any NaN equals any NaN).
const (
	WithinBound  = "within bound"
	OutsideBound = "outside bound"
)

// ReduceBoundCheck is the verdict on one output element of a floating-point
// REDUCE: Bound is the largest |vkdml − DirectML| rule 44 allows for the
// block (+Inf where the block makes DirectML's answer unpredictable: an
// intermediate may overflow or underflow in some order, or the log of a sum
// whose sign the bound leaves open), Diff the difference found.
type ReduceBoundCheck struct {
	Verdict string
	Bound   float64
	Diff    float64
	// Saturated: within bound as DirectML's FLOAT16 ±65504 for a result
	// past FLOAT16's range, whatever Diff and Bound are.
	Saturated bool
}

// floatFormat is what the bound needs of an output type.
type floatFormat struct {
	unit float64 // unit roundoff 2^-p: half an ULP at 1
	// narrowULP is how many of the format's ULPs DirectML's result may be
	// from its FLOAT32 value: ½ for FLOAT32 (IEEE rounding), 1 for FLOAT16
	// (measured: the rig's kernels narrow towards zero, rule 44).
	narrowULP float64
	minULP    float64 // the smallest denormal
	overflow  float64 // the magnitude from which a value rounds to infinity
}

var (
	boundFloat32 = floatFormat{unit: 0x1p-24, minULP: 0x1p-149, overflow: 0x1p128 - 0x1p103, narrowULP: 0.5}
	boundFloat16 = floatFormat{unit: 0x1p-11, minULP: 0x1p-24, overflow: 65520, narrowULP: 1}
)

// minNormal is the format's smallest normal number.
func (f floatFormat) minNormal() float64 { return f.minULP / (2 * f.unit) }

// ulp is the spacing of the format's numbers at |v| (the largest finite
// number's spacing past it).
func (f floatFormat) ulp(v float64) float64 {
	v = math.Min(math.Abs(v), f.overflow)
	if v == 0 {
		return f.minULP
	}
	return math.Max(math.Ldexp(2*f.unit, math.Ilogb(v)), f.minULP)
}

// gamma is γ_k = k·u/(1 − k·u), the relative error bound of k rounded
// operations in any order (Higham, Accuracy and Stability, §3.1).
func gamma(k int, u float64) float64 {
	ku := float64(k) * u
	if ku >= 1 {
		return math.Inf(1)
	}
	return ku / (1 - ku)
}

// The ULPs DirectML's own elementwise functions may be off by on a Vulkan
// driver: the Vulkan specification's precision table (exp 3 + 2·|x| ULP,
// log 3 ULP outside [0.5, 2] and 2^-21 absolute inside, sqrt as
// 1/inversesqrt, division 2.5 ULP).
const (
	driverExpULP     = 3
	driverLogULP     = 3
	driverLogAbsNear = 0x1p-21
	driverSqrtULP    = 5
	driverDivULP     = 2.5
	// vkdml's exp and log: under 0.5 ULP + 2^-20 (rule 40).
	vkdmlExpLogULP = 0.5 + 0x1p-20
)

// CheckReduceFloat classifies vkdml's answer for one output element of the
// floating-point REDUCE function (DML_REDUCE_FUNCTION's name) against
// DirectML's. block holds the block's input values (FLOAT32 or FLOAT16,
// exactly), dataType is "FLOAT32" or "FLOAT16".
func CheckReduceFloat(function, dataType string, block []float64, vkdml, directml float64) (ReduceBoundCheck, error) {
	var out floatFormat
	switch dataType {
	case "FLOAT32":
		out = boundFloat32
	case "FLOAT16":
		out = boundFloat16
	default:
		return ReduceBoundCheck{}, fmt.Errorf("parity: REDUCE %s bound: data type %q is not FLOAT32 or FLOAT16", function, dataType)
	}
	if len(block) == 0 {
		return ReduceBoundCheck{}, fmt.Errorf("parity: REDUCE %s bound: the block is empty", function)
	}
	bound, err := reduceFloatBound(function, out, block, vkdml)
	if err != nil {
		return ReduceBoundCheck{}, err
	}
	c := ReduceBoundCheck{Bound: bound, Diff: math.Abs(vkdml - directml)}
	// vkdml's infinity from rounding a finite result: DirectML's finite
	// answer is compared with that result (the real value, in float64).
	value := reduceRealValue(function, block)
	vkdmlRounded := math.IsInf(vkdml, 0) && !math.IsInf(value, 0) && !math.IsNaN(value) &&
		!math.IsInf(directml, 0) && !math.IsNaN(directml)
	if vkdmlRounded {
		c.Diff = math.Abs(value - directml)
	}
	switch {
	case math.Float64bits(vkdml) == math.Float64bits(directml) || math.IsNaN(vkdml) && math.IsNaN(directml):
		c.Verdict, c.Diff = Equal, 0
	case math.IsInf(bound, 1):
		c.Verdict = WithinBound
	case nearOverflow(out, vkdml, directml, bound):
		c.Verdict = WithinBound // a finite answer within the bound of the overflow
	case vkdmlRounded && dataType == "FLOAT16" && math.Abs(directml) == 65504 && math.Signbit(directml) == math.Signbit(vkdml) &&
		math.Abs(value) < boundFloat32.overflow:
		// DirectML's DXBC kernels convert a FLOAT32 result past FLOAT16's
		// range to ±65504, not ±inf (rule 44; rule 9a's pooling too).
		c.Verdict, c.Saturated = WithinBound, true
	case math.IsNaN(c.Diff) || math.IsInf(c.Diff, 0):
		c.Verdict = OutsideBound // a NaN or infinity the block decides
	case c.Diff <= bound:
		c.Verdict = WithinBound
	default:
		c.Verdict = OutsideBound
	}
	return c, nil
}

// reduceRealValue is the function's value for the block in float64: its
// terms (rule 41: x·x and exp(x) rounded to FLOAT32, so that they
// overflow as vkdml's do) summed, then divided, rooted or logged;
// MULTIPLY's product.
func reduceRealValue(function string, block []float64) float64 {
	sum, product := 0.0, 1.0
	for _, x := range block {
		switch function {
		case "L1":
			x = math.Abs(x)
		case "SUM_SQUARE", "L2":
			x = float64(float32(x * x))
		case "LOG_SUM_EXP":
			x = float64(float32(math.Exp(x)))
		}
		sum += x
		product *= x
	}
	switch function {
	case "AVERAGE":
		return sum / float64(len(block))
	case "L2":
		return math.Sqrt(sum)
	case "LOG_SUM", "LOG_SUM_EXP":
		return math.Log(sum)
	case "MULTIPLY":
		return product
	}
	return sum
}

// nearOverflow reports whether finite is within bound of the output type's
// overflow on the side of the infinity inf.
func nearOverflow(out floatFormat, finite, inf, bound float64) bool {
	return math.IsInf(inf, 0) && !math.IsInf(finite, 0) && !math.IsNaN(finite) &&
		math.Signbit(inf) == math.Signbit(finite) && math.Abs(finite)+bound >= out.overflow
}

// reduceFloatBound is rule 44's bound for the block; +Inf where any answer
// is possible, 0 where the answer is a NaN or an infinity the block decides
// in every order.
func reduceFloatBound(function string, out floatFormat, block []float64, vkdml float64) (float64, error) {
	// DirectML computes FLOAT16 in FLOAT32 (measured, rule 41): its unit
	// roundoff and overflow are FLOAT32's for both types.
	acc := boundFloat32
	if function == "MULTIPLY" {
		return multiplyBound(out, acc, block, vkdml), nil
	}
	terms := make([]float64, len(block))
	deltas := make([]float64, len(block)) // each side's relative term error
	for i, x := range block {
		switch function {
		case "SUM", "AVERAGE", "LOG_SUM":
			terms[i] = x
		case "L1":
			terms[i] = math.Abs(x)
		case "SUM_SQUARE", "L2":
			// rounded to FLOAT32 by vkdml; DirectML may round it to its
			// accumulation type or fuse it into the addition.
			terms[i], deltas[i] = x*x, acc.unit
		case "LOG_SUM_EXP":
			terms[i] = math.Exp(x)
			deltas[i] = (driverExpULP + 2*math.Abs(x) + vkdmlExpLogULP) * 2 * acc.unit
		default:
			return 0, fmt.Errorf("parity: REDUCE bound: function %q is not one of AVERAGE, L1, L2, LOG_SUM, LOG_SUM_EXP, MULTIPLY, SUM, SUM_SQUARE", function)
		}
	}
	// Terms past the overflow are infinities on both sides, unless within
	// the terms' error of it; NaN terms are NaN on both sides.
	var abs, sum, delta float64
	nonFinite := false
	for i, t := range terms {
		if math.IsNaN(t) || math.Abs(t)*(1-deltas[i]) >= acc.overflow {
			nonFinite = true
			continue
		}
		if math.Abs(t)*(1+deltas[i]) >= acc.overflow {
			return math.Inf(1), nil
		}
		abs += math.Abs(t)
		sum += t
		delta = math.Max(delta, deltas[i])
	}
	if nonFinite || abs == 0 { // every order gives the same answer
		return 0, nil
	}
	g := gamma(len(block)-1, acc.unit)
	if abs*(1+g+2*delta) >= acc.overflow { // a partial sum may overflow
		return math.Inf(1), nil
	}
	sumErr := g*abs + 2*delta*abs // |DirectML's sum − vkdml's exact sum|
	switch function {
	case "SUM", "L1", "SUM_SQUARE":
		// vkdml's rounding (½ ULP) and DirectML's narrowing.
		return sumErr + (0.5+out.narrowULP)*out.ulp(vkdml), nil
	}
	// The inner sum vkdml rounds to FLOAT32, and its error from DirectML's.
	inner := sumErr + boundFloat32.ulp(sum)/2
	switch function {
	case "AVERAGE":
		n := float64(len(block))
		return inner/n + (driverDivULP+1.5)*out.ulp(vkdml) + boundFloat32.unit*math.Abs(vkdml), nil
	case "L2":
		root := math.Sqrt(inner)
		if vkdml > 0 {
			root = math.Min(root, inner/vkdml)
		}
		return root + (driverSqrtULP+1.5)*out.ulp(vkdml), nil
	}
	// LOG_SUM, LOG_SUM_EXP: |log a − log b| <= |a − b|/min(a, b).
	// Where DirectML's sum may be denormal, the driver may flush it to
	// zero (log −inf) or misread it (lavapipe: log(2^-147) = log(2^-127)).
	low := math.Abs(sum) - inner
	if low < boundFloat32.minNormal() {
		return math.Inf(1), nil
	}
	return inner/low + math.Max((driverLogULP+1.5)*out.ulp(vkdml), driverLogAbsNear), nil
}

// multiplyBound: both orders are within γ_(n−1) of the exact product while
// no partial product leaves the normal range; where one may (in some
// order), any answer is possible.
func multiplyBound(out, acc floatFormat, block []float64, vkdml float64) float64 {
	var up, down float64 // log2 of the largest and smallest partial products
	product := 1.0
	for _, x := range block {
		a := math.Abs(x)
		switch {
		case math.IsNaN(x):
			return 0
		case a == 0 || math.IsInf(x, 0):
			product = math.NaN() // decided below
			continue
		}
		l := math.Log2(a)
		if l > 0 {
			up += l
		} else {
			down += l
		}
		product *= x
	}
	minNormal := math.Log2(acc.minULP / acc.unit / 2) // 2^emin
	if up >= math.Log2(acc.overflow)-1 || down < minNormal+1 {
		return math.Inf(1)
	}
	if math.IsNaN(product) { // a zero or an infinity decides it
		return 0
	}
	// vkdml's FLOAT16 rounding of its FLOAT32 product (½ ULP) and
	// DirectML's narrowing, as for SUM.
	n := len(block) - 1
	return 2*gamma(n, acc.unit)*math.Abs(product) + (0.5+out.narrowULP)*out.ulp(vkdml)
}
