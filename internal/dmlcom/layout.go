package dmlcom

import (
	"fmt"

	"github.com/vkdml/vkdml/hresult"
)

// arenaLayout is where the tensors of a case lie in the one buffer that
// holds them all: inputs, outputs, temporary, persistent, each at a
// 256-byte aligned offset.
type arenaLayout struct {
	temp, persistent uint64
	ins, outs        []uint64
	total            uint64 // the buffer's size
}

// maxArena bounds the one buffer of a case: the runner maps its upload
// and readback copies into the address space and views them as Go slices
// (2^47 bytes is more than any machine's address space holds, and less
// than the largest Go slice), so a larger case is refused before the
// device or the host allocates anything.
const maxArena = 1 << 47

// sizeError is a case whose tensors exceed what the runner can lay out:
// E_OUTOFMEMORY, as DirectML's own allocation would be, naming the
// tensor, its size and the bound.
type sizeError struct {
	field string
	size  uint64
}

func (e *sizeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, with the case's other tensors, exceed the %d bytes of one mapped buffer the runner lays a case out in [%s]",
		e.field, e.size, uint64(maxArena), hresult.E_OUTOFMEMORY.Name())
}

// layOutArena places inputs, outputs of the given sizes, a temporary and a
// persistent resource in one buffer, or refuses a layout past maxArena.
func layOutArena(inputs [][]byte, outputs []uint64, temp, persistent uint64) (*arenaLayout, error) {
	l := &arenaLayout{}
	for i, in := range inputs {
		at, err := l.place(fmt.Sprintf("inputs[%d]", i), uint64(len(in)))
		if err != nil {
			return nil, err
		}
		l.ins = append(l.ins, at)
	}
	for i, n := range outputs {
		at, err := l.place(fmt.Sprintf("outputs[%d].TotalTensorSizeInBytes", i), n)
		if err != nil {
			return nil, err
		}
		l.outs = append(l.outs, at)
	}
	var err error
	if l.temp, err = l.place("temporary resource", temp); err != nil {
		return nil, err
	}
	if l.persistent, err = l.place("persistent resource", persistent); err != nil {
		return nil, err
	}
	return l, nil
}

// place reserves size bytes (at least 4) at the end of the buffer and
// returns their offset.
func (l *arenaLayout) place(field string, size uint64) (uint64, error) {
	at := l.total
	if size > maxArena || at+max(size, 4) > maxArena-256 {
		return 0, &sizeError{field, size}
	}
	l.total = align(at+max(size, 4), 256)
	return at, nil
}

func align(n, a uint64) uint64 { return (n + a - 1) / a * a }

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}
