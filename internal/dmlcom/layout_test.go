package dmlcom

import (
	"errors"
	"strings"
	"testing"
)

// TestLayOutArenaRefusesOversize: outputs whose TotalTensorSizeInBytes no
// mapped buffer holds (10^15, 2^62, 2^64-1, and two outputs whose sum
// wraps) are refused naming the output, before anything is allocated,
// where the layout used to wrap and the runner's fill to panic in
// makeslice; a case that fits lays out aligned and in order.
func TestLayOutArenaRefusesOversize(t *testing.T) {
	ins := [][]byte{make([]byte, 24)}
	for _, c := range []struct {
		outs  []uint64
		field string
	}{
		{[]uint64{1e15}, "outputs[0]"},
		{[]uint64{1 << 62}, "outputs[0]"},
		{[]uint64{^uint64(0)}, "outputs[0]"},
		{[]uint64{1 << 46, 1<<47 - 1<<46}, "outputs[1]"},
	} {
		_, err := layOutArena(ins, c.outs, 0, 0)
		var se *sizeError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "E_OUTOFMEMORY") {
			t.Errorf("outputs %v: error %v, want E_OUTOFMEMORY naming %s", c.outs, err, c.field)
		}
	}
	l, err := layOutArena(ins, []uint64{12, 0}, 100, 8)
	if err != nil {
		t.Fatal(err)
	}
	if l.ins[0] != 0 || l.outs[0] != 256 || l.outs[1] != 512 || l.temp != 768 || l.persistent != 1024 || l.total != 1280 {
		t.Errorf("layout %+v", l)
	}
	b := make([]byte, 1000)
	fill(b[3:777], 0xCD)
	for i, v := range b {
		if want := byte(0); i >= 3 && i < 777 && v != 0xCD || (i < 3 || i >= 777) && v != want {
			t.Fatalf("fill: byte %d is %#x", i, v)
		}
	}
}
