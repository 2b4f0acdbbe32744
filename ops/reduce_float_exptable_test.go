package ops

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestExpHalfTable: every word of TableExpHalf is expFloat32 of its
// FLOAT16 widened, bit for bit (the kernels' terms are the reference's),
// and, independently of expFloat32, float64's exp rounded to FLOAT32
// wherever that exp is not within 2^-40 (relative) of a FLOAT32 rounding
// midpoint, where float64's own error could round it the other way; NaN
// halves give a NaN, +inf +inf, -inf 0.
func TestExpHalfTable(t *testing.T) {
	b := TableExpHalf.Bytes()
	if len(b) != TableExpHalfBytes || TableExpHalf.Size() != TableExpHalfBytes {
		t.Fatalf("%d bytes, Size %d: want %d", len(b), TableExpHalf.Size(), TableExpHalfBytes)
	}
	near := 0
	for h := range 1 << 16 {
		got := binary.LittleEndian.Uint32(b[4*h:])
		x := halfToFloat32Bits(uint16(h))
		if want := expFloat32(x); got != want {
			t.Fatalf("half %#04x: table %#08x, expFloat32 %#08x", h, got, want)
		}
		f := float64(math.Float32frombits(x))
		if math.IsNaN(f) {
			if !isNaN32(got) {
				t.Errorf("half %#04x (NaN): table %#08x", h, got)
			}
			continue
		}
		e := math.Exp(f)
		want := math.Float32bits(float32(e))
		if got == want {
			continue
		}
		// The midpoint between the two FLOAT32 candidates.
		lo, hi := min(got, want), max(got, want)
		mid := (float64(math.Float32frombits(lo)) + float64(math.Float32frombits(hi))) / 2
		if hi != lo+1 || math.Abs(e-mid) > math.Ldexp(e, -40) {
			t.Errorf("half %#04x (%g): table %#08x, float64's exp %g rounds to %#08x", h, f, got, e, want)
		}
		near++
	}
	t.Logf("%d halves whose exp lies near a FLOAT32 midpoint", near)
	for _, c := range []struct{ h, want uint32 }{{0x0000, 0x3f800000}, {0x8000, 0x3f800000}, {0x7c00, 0x7f800000}, {0xfc00, 0}, {0x5990, 0x7f800000}, {0xd680, 0}} {
		if got := binary.LittleEndian.Uint32(b[4*c.h:]); got != c.want {
			t.Errorf("half %#04x: table %#08x, want %#08x", c.h, got, c.want)
		}
	}
	if Table(99).Size() != 0 || Table(99).Bytes() != nil {
		t.Error("an unknown table has bytes")
	}
}
