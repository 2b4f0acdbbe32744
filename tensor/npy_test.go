package tensor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vkdml/vkdml/internal/safefile/safefiletest"
)

// mkNpy assembles a .npy file from a header dictionary, padding it like
// np.save (spaces and a newline to a 64-byte boundary).
func mkNpy(major byte, dict string, data []byte) []byte {
	lenBytes := 2
	if major >= 2 {
		lenBytes = 4
	}
	hlen := len(dict) + 1
	pad := (64 - (6+2+lenBytes+hlen)%64) % 64
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{major, 0})
	if lenBytes == 2 {
		binary.Write(&b, binary.LittleEndian, uint16(hlen+pad))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(hlen+pad))
	}
	b.WriteString(dict + strings.Repeat(" ", pad) + "\n")
	b.Write(data)
	return b.Bytes()
}

// testValues returns n values representable in every supported type.
func testValues(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64((i*37)%120) - 7*int64(i%3) // in [-14, 119]
	}
	return v
}

// bitsEqual compares two tensors' logical elements bit for bit.
func bitsEqual(t *testing.T, got, want *Tensor) {
	t.Helper()
	if got.Desc.DataType != want.Desc.DataType || !slices.Equal(got.Desc.Sizes, want.Desc.Sizes) {
		t.Fatalf("got %v, want %v", got.Desc, want.Desc)
	}
	ForEachIndex(want.Desc.Sizes, func(c []uint32) {
		if g, w := got.Bits(c...), want.Bits(c...); g != w {
			t.Fatalf("%v at %v: bits %#x, want %#x", want.Desc.DataType, c, g, w)
		}
	})
}

func TestNpyGolden(t *testing.T) {
	// np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) with NumPy ≥ 1.x:
	// a 118-byte ('v') header so the data starts at byte 128.
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	golden := "\x93NUMPY\x01\x00v\x00" + dict + strings.Repeat(" ", 127-10-len(dict)) + "\n"
	var data bytes.Buffer
	for i := range 6 {
		binary.Write(&data, binary.LittleEndian, float32(i))
	}
	golden += data.String()

	x := FromFloat32([]uint32{2, 3}, []float32{0, 1, 2, 3, 4, 5})
	var out bytes.Buffer
	if err := WriteNpy(&out, x); err != nil {
		t.Fatal(err)
	}
	if out.String() != golden {
		t.Errorf("WriteNpy:\n got %q\nwant %q", out.String(), golden)
	}
	y, err := ReadNpy(strings.NewReader(golden))
	if err != nil {
		t.Fatal(err)
	}
	bitsEqual(t, y, x)

	// np.save(f, np.array([1, -2, 3], dtype='<i8')): 1-D shape "(3,)".
	dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }"
	golden = "\x93NUMPY\x01\x00v\x00" + dict + strings.Repeat(" ", 127-10-len(dict)) + "\n"
	out.Reset()
	if err := WriteNpy(&out, FromInt64As(Int64, []uint32{3}, []int64{1, -2, 3})); err != nil {
		t.Fatal(err)
	}
	if got := out.String()[:128]; got != golden {
		t.Errorf("WriteNpy 1-D header:\n got %q\nwant %q", got, golden)
	}
}

// npyRoundTrip writes x as .npy and reads it back; written is the file.
func npyRoundTrip(t *testing.T, x *Tensor) (y *Tensor, written []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteNpy(&b, x); err != nil {
		t.Fatal(err)
	}
	written = slices.Clone(b.Bytes())
	y, err := ReadNpy(&b)
	if err != nil {
		t.Fatal(err)
	}
	return y, written
}

func TestNpyRoundTrip(t *testing.T) {
	shapes := [][]uint32{{1}, {7}, {2, 3}, {3, 1, 4}, {2, 3, 2, 2}, {1, 2, 1, 2, 1, 2, 1, 3}}
	for _, dt := range AllTypes {
		for _, shape := range shapes {
			n := int(NewDesc(dt, shape).ElementCount())
			x := FromInt64As(dt, shape, testValues(n))
			t.Run(fmt.Sprintf("%v%v/C", dt, shape), func(t *testing.T) {
				y, _ := npyRoundTrip(t, x)
				if len(y.Desc.Strides) != 0 || y.Desc.TotalTensorSizeInBytes != x.Desc.TotalTensorSizeInBytes {
					t.Errorf("desc %v, want %v", y.Desc, x.Desc)
				}
				if err := y.Validate(); err != nil {
					t.Error(err)
				}
				bitsEqual(t, y, x)
			})
			t.Run(fmt.Sprintf("%v%v/Fortran", dt, shape), func(t *testing.T) {
				// Column-major data: first index fastest.
				es := dt.Size()
				var data []byte
				fsizes := slices.Clone(shape)
				slices.Reverse(fsizes)
				ForEachIndex(fsizes, func(rc []uint32) {
					c := slices.Clone(rc)
					slices.Reverse(c)
					data = binary.LittleEndian.AppendUint64(data, x.Bits(c...))[:len(data)+es]
				})
				dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': True, 'shape': (%s,), }", dt.NumpyDescr(), joinUints(shape, ", "))
				y, err := ReadNpy(bytes.NewReader(mkNpy(1, dict, data)))
				if err != nil {
					t.Fatal(err)
				}
				if len(shape) > 1 {
					want := make([]uint32, len(shape))
					acc := uint32(1)
					for i, s := range shape {
						want[i], acc = acc, acc*s
					}
					if !slices.Equal(y.Desc.Strides, want) {
						t.Errorf("strides %v, want %v", y.Desc.Strides, want)
					}
				}
				if !bytes.Equal(y.Data[:len(data)], data) {
					t.Errorf("Fortran data was rearranged")
				}
				if err := y.Validate(); err != nil {
					t.Error(err)
				}
				bitsEqual(t, y, x)
				// Writing gives C order; reading that back gives the same values.
				z, written := npyRoundTrip(t, y)
				if !strings.Contains(string(written[:128]), "'fortran_order': False") {
					t.Errorf("WriteNpy wrote %q", written[:128])
				}
				bitsEqual(t, z, x)
			})
		}
	}
}

func TestNpyBigEndian(t *testing.T) {
	tests := []struct {
		descr string
		dt    DataType
		data  []byte
		want  []uint64 // raw little-endian element bits
	}{
		{">i4", Int32, []byte{0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFE}, []uint64{1, 0xFFFFFFFE}},
		{">f2", Float16, []byte{0x3C, 0x00, 0xC0, 0x00}, []uint64{0x3C00, 0xC000}},
		{">u8", UInt64, []byte{1, 2, 3, 4, 5, 6, 7, 8}, []uint64{0x0102030405060708}},
		{">f4", Float32, []byte{0x3F, 0x80, 0, 0}, []uint64{0x3F800000}},
		{">i1", Int8, []byte{0xFE}, []uint64{0xFE}},
		{"<u1", UInt8, []byte{7}, []uint64{7}},
	}
	for _, tc := range tests {
		dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", tc.descr, len(tc.want))
		x, err := ReadNpy(bytes.NewReader(mkNpy(1, dict, tc.data)))
		if err != nil {
			t.Fatalf("%s: %v", tc.descr, err)
		}
		if x.Desc.DataType != tc.dt {
			t.Errorf("%s: type %v", tc.descr, x.Desc.DataType)
		}
		for i, w := range tc.want {
			if g := x.Bits(uint32(i)); g != w {
				t.Errorf("%s[%d] = %#x, want %#x", tc.descr, i, g, w)
			}
		}
	}
}

func TestNpyHeaderVariants(t *testing.T) {
	data := []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0}
	tests := []struct {
		name  string
		major byte
		dict  string
		shape []uint32
	}{
		{"numpy style", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", []uint32{2, 3}},
		{"version 2", 2, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", []uint32{2, 3}},
		{"version 3", 3, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }", []uint32{2, 3}},
		{"key order, no spaces", 1, "{'shape':(6,),'fortran_order':False,'descr':'<i2'}", []uint32{6}},
		{"double quotes", 1, `{"descr": "<i2", "fortran_order": False, "shape": (3, 2)}`, []uint32{3, 2}},
		{"python 2 longs", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 3L), }", []uint32{2, 3}},
		{"old 16-byte padding", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (1, 6), }", []uint32{1, 6}},
		{"scalar", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (), }", []uint32{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := ReadNpy(bytes.NewReader(mkNpy(tc.major, tc.dict, data)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(x.Desc.Sizes, tc.shape) || x.Desc.DataType != Int16 {
				t.Errorf("got %v", x.Desc)
			}
			if x.Int64At(make([]uint32, len(tc.shape))...) != 1 {
				t.Errorf("first element %d", x.Int64At(make([]uint32, len(tc.shape))...))
			}
		})
	}
}

// noSeek hides io.Seeker, forcing the progressive read path.
type noSeek struct{ r io.Reader }

func (n noSeek) Read(p []byte) (int, error) { return n.r.Read(p) }

func TestNpyCorrupt(t *testing.T) {
	good := mkNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", make([]byte, 24))
	hdr := func(dict string, data int) []byte { return mkNpy(1, dict, make([]byte, data)) }
	d := func(descr, shape string) string {
		return fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	}
	v1len := func(n uint16) []byte {
		return binary.LittleEndian.AppendUint16([]byte(npyMagic+"\x01\x00"), n)
	}
	tests := []struct {
		name string
		file []byte
		msg  string
	}{
		{"empty", nil, "truncated: magic"},
		{"bad magic", append([]byte("\x93NUMPZ\x01\x00"), good[8:]...), "magic"},
		{"not npy", []byte("PK\x03\x04 zip"), "magic"},
		{"short magic", []byte("\x93NUM"), "truncated: magic"},
		{"bad version", append([]byte(npyMagic+"\x04\x00"), good[8:]...), "version: 4.0"},
		{"bad minor", append([]byte(npyMagic+"\x01\x01"), good[8:]...), "version: 1.1"},
		{"no header length", []byte(npyMagic + "\x01\x00\x10"), "truncated: header length"},
		{"header length past EOF", append(v1len(200), "{'descr'"...), "header length: 200 bytes declared but only 8 follow"},
		{"huge v2 header length", []byte(npyMagic + "\x02\x00\xff\xff\xff\xff{"), "exceeds the 65536-byte limit"},
		{"truncated header", good[:40], "truncated: header length"},
		{"truncated data", good[:len(good)-1], "needs 24 bytes of data but only 23"},
		{"no data", good[:128], "only 0 follow"},
		{"not a dict", hdr("['descr', '<f4']", 4), "want '{'"},
		// A non-breaking space is named as the character, in ASCII, never
		// as its first byte (which %q of a byte prints as 'Â').
		{"non-breaking space", hdr("{'descr':\u00a0'<f4', 'fortran_order': False, 'shape': (1,)}", 4), `'\u00a0' at byte`},
		{"non-UTF-8 byte", hdr("{'descr':\xa0'<f4', 'fortran_order': False, 'shape': (1,)}", 4), "byte 0xA0 at byte"},
		{"unterminated dict", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", 4), "end of header"},
		{"missing comma", hdr("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", 4), "want ',' or '}'"},
		{"missing key", hdr("{'descr': '<f4', 'shape': (1,)}", 4), `missing key "fortran_order"`},
		{"extra key", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4), `unexpected key "x"`},
		{"duplicate key", hdr("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4), "appears twice"},
		{"unquoted key", hdr("{descr: '<f4', 'fortran_order': False, 'shape': (1,)}", 4), "quoted string"},
		{"unterminated string", hdr("{'descr: <f4}", 4), "unterminated"},
		{"trailing junk", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", 4), "after the closing"},
		{"bad fortran_order", hdr("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", 4), "fortran_order: want True or False"},
		{"fortran_order prefix", hdr("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}", 4), "fortran_order"},
		{"shape not tuple", hdr(d("<f4", "[1]"), 4), "shape: want a tuple"},
		{"shape (n) not tuple", hdr(d("<f4", "(1)"), 4), "not a tuple"},
		{"shape junk", hdr(d("<f4", "(1, a)"), 4), "integer for dimension 1"},
		{"shape unclosed", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2", 8), "shape"},
		{"negative dim", hdr(d("<f4", "(2, -3)"), 24), "dimension 1 is -3, negative"},
		{"zero dim", hdr(d("<f4", "(2, 0)"), 0), "dimension 1 is 0"},
		{"dim > uint32", hdr(d("<f4", "(4294967296,)"), 4), "more than 2^32-1"},
		{"dim > int64", hdr(d("<f4", "(99999999999999999999,)"), 4), "out of range"},
		{"rank 9", hdr(d("|u1", "(1, 1, 1, 1, 1, 1, 1, 1, 1)"), 4), "9 dimensions"},
		{"2^40 elements", hdr(d("<f4", "(1048576, 1048576)"), 4), "1099511627776 elements"},
		{"product overflows", hdr(d("|u1", "(4294967295, 4294967295, 4294967295)"), 4), ">= 2^64 elements"},
		{"float64", hdr(d("<f8", "(1,)"), 8), "FLOAT64"},
		{"bool", hdr(d("|b1", "(1,)"), 4), `unsupported dtype "|b1"`},
		{"complex", hdr(d("<c8", "(1,)"), 8), `unsupported dtype "<c8"`},
		{"object", hdr(d("|O", "(1,)"), 8), `unsupported dtype "|O"`},
		{"unicode", hdr(d("<U3", "(1,)"), 12), `unsupported dtype "<U3"`},
		{"no byte order", hdr(d("f4", "(1,)"), 4), `unsupported dtype "f4"`},
		{"pipe on f4", hdr(d("|f4", "(1,)"), 4), "does not fix the byte order"},
		{"native order", hdr(d("=i4", "(1,)"), 4), "does not fix the byte order"},
		{"structured", hdr("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", 4), "structured"},
		{"escape", hdr(`{'descr': '<f\x34', 'fortran_order': False, 'shape': (1,)}`, 4), "unsupported character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{bytes.NewReader(tc.file), noSeek{bytes.NewReader(tc.file)}} {
				x, err := ReadNpy(r)
				if err == nil {
					t.Fatalf("%T: read %v, want error", r, x.Desc)
				}
				if !errors.Is(err, ErrBadNpy) {
					t.Errorf("%T: error %v does not wrap ErrBadNpy", r, err)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("%T: error %q does not say %q", r, err, tc.msg)
				}
			}
		})
	}
	// Unsupported dtype errors list what is supported.
	_, err := ReadNpy(bytes.NewReader(hdr(d("|b1", "(1,)"), 4)))
	if err == nil || !strings.Contains(err.Error(), "<f4, <f2, <u4, <u2, |u1, <i4, <i2, |i1, <u8, <i8") {
		t.Errorf("error %v does not list the supported dtypes", err)
	}
}

// TestNpyLyingHeader reads headers that claim up to 16 GiB of data in a
// tiny file: ReadNpy must fail quickly without allocating for the claim.
func TestNpyLyingHeader(t *testing.T) {
	files := [][]byte{
		mkNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967295,), }", make([]byte, 100)),
		mkNpy(2, "{'descr': '<i8', 'fortran_order': True, 'shape': (65536, 65535), }", make([]byte, 3<<20)),
	}
	for i, f := range files {
		for _, r := range []io.Reader{bytes.NewReader(f), noSeek{bytes.NewReader(f)}} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := ReadNpy(r)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrBadNpy) || !strings.Contains(err.Error(), "truncated") {
				t.Errorf("file %d %T: error %v, want truncated", i, r, err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("file %d %T: allocated %d bytes for a %d-byte file", i, r, alloc, len(f))
			}
			if elapsed > 10*time.Second {
				t.Errorf("file %d %T: took %v", i, r, elapsed)
			}
		}
	}
}

// TestNpyStreams checks that a non-seekable stream of several arrays reads
// each in turn (trailing bytes are left for the next read) and that the
// progressive path handles arrays larger than its first chunk.
func TestNpyStreams(t *testing.T) {
	a := FromInt64As(Int32, []uint32{3}, []int64{1, 2, 3})
	n := 3<<20 + 5
	vals := make([]uint64, n)
	for i := range vals {
		vals[i] = uint64(i * 7)
	}
	b := FromUint64As(UInt8, []uint32{uint32(n)}, vals)
	var buf bytes.Buffer
	for _, x := range []*Tensor{a, b, a} {
		if err := WriteNpy(&buf, x); err != nil {
			t.Fatal(err)
		}
	}
	r := noSeek{&buf}
	for _, want := range []*Tensor{a, b, a} {
		got, err := ReadNpy(r)
		if err != nil {
			t.Fatal(err)
		}
		bitsEqual(t, got, want)
		if uint64(len(got.Data)) != got.Desc.TotalTensorSizeInBytes {
			t.Errorf("Data %d bytes, total %d", len(got.Data), got.Desc.TotalTensorSizeInBytes)
		}
	}
	if _, err := ReadNpy(r); !errors.Is(err, ErrBadNpy) {
		t.Errorf("read past the last array: %v", err)
	}
}

func TestNpyWriteStrided(t *testing.T) {
	// A padded, broadcast tensor is written packed.
	d := NewStridedDesc(Int16, []uint32{3, 2}, []uint32{0, 3})
	x := &Tensor{Desc: d, Data: make([]byte, d.TotalTensorSizeInBytes)}
	x.SetInt64([]uint32{0, 0}, -5)
	x.SetInt64([]uint32{0, 1}, 9)
	y, _ := npyRoundTrip(t, x)
	if got := y.Int64s(); !slices.Equal(got, []int64{-5, 9, -5, 9, -5, 9}) {
		t.Errorf("got %v", got)
	}
	// Invalid tensors are refused before anything is written.
	var buf bytes.Buffer
	bad := &Tensor{Desc: NewDesc(Float64, []uint32{2}), Data: make([]byte, 16)}
	if err := WriteNpy(&buf, bad); err == nil || buf.Len() != 0 {
		t.Errorf("WriteNpy(FLOAT64) = %v, wrote %d bytes", err, buf.Len())
	}
}

func TestNpyFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npy")
	x := FromFloat64As(Float16, []uint32{2, 2}, []float64{1, -2, 0.5, 65504})
	if err := WriteNpyFile(path, x); err != nil {
		t.Fatal(err)
	}
	y, err := ReadNpyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bitsEqual(t, y, x)
	// Windows keeps no permission bits, only a read-only flag.
	if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}

	// Failing writes leave nothing behind and keep the old file.
	bad := &Tensor{Desc: NewDesc(Float64, []uint32{2}), Data: make([]byte, 16)}
	if err := WriteNpyFile(path, bad); err == nil {
		t.Error("WriteNpyFile(FLOAT64) succeeded")
	}
	short := &Tensor{Desc: NewDesc(Float32, []uint32{4}), Data: make([]byte, 8)}
	if err := WriteNpyFile(filepath.Join(dir, "short.npy"), short); err == nil {
		t.Error("WriteNpyFile(short data) succeeded")
	}
	missing := filepath.Join(dir, "no", "such", "dir", "y.npy")
	if err := WriteNpyFile(missing, x); err == nil {
		t.Error("WriteNpyFile into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "x.npy" {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only x.npy", names)
	}
	if y, err := ReadNpyFile(path); err != nil {
		t.Errorf("old file damaged: %v", err)
	} else {
		bitsEqual(t, y, x)
	}

	// Read errors name the file.
	corrupt := filepath.Join(dir, "corrupt.npy")
	os.WriteFile(corrupt, mkNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }", make([]byte, 8)), 0o644)
	_, err = ReadNpyFile(corrupt)
	if !errors.Is(err, ErrBadNpy) || !strings.Contains(err.Error(), corrupt) || !strings.Contains(err.Error(), "needs 4000 bytes of data but only 8") {
		t.Errorf("ReadNpyFile(corrupt) = %v", err)
	}
	if _, err := ReadNpyFile(filepath.Join(dir, "absent.npy")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadNpyFile(absent) = %v", err)
	}
}

func FuzzReadNpy(f *testing.F) {
	var buf bytes.Buffer
	WriteNpy(&buf, FromFloat32([]uint32{2, 3}, []float32{0, 1, 2, 3, 4, math.Float32frombits(0x7FC00001)}))
	f.Add(buf.Bytes())
	f.Add(mkNpy(1, "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 2), }", []byte{0, 1, 0, 2, 0, 3, 0, 4}))
	f.Add(mkNpy(3, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", []byte{9}))
	f.Add(mkNpy(2, "{'shape':(1,2,1),'descr':'<f2','fortran_order':False}", []byte{0, 0x3C, 0, 0xBC}))
	f.Add(mkNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967295,), }", nil))
	f.Add([]byte(npyMagic + "\x01\x00\x05\x00{'de"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := ReadNpy(bytes.NewReader(data))
		y, err2 := ReadNpy(noSeek{bytes.NewReader(data)})
		if (err == nil) != (err2 == nil) {
			t.Fatalf("seekable and streaming reads disagree: %v vs %v", err, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrBadNpy) {
				t.Fatalf("error %v does not wrap ErrBadNpy", err)
			}
			return
		}
		if err := x.Validate(); err != nil {
			t.Fatalf("ReadNpy returned an invalid tensor: %v", err)
		}
		bitsEqual(t, y, x)
		z, _ := npyRoundTrip(t, x)
		bitsEqual(t, z, x)
	})
}

// TestNpyPipe reads through an *os.File that cannot report its length.
func TestNpyPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Skip(err)
	}
	defer pr.Close()
	x := FromInt64As(Int8, []uint32{2, 2}, []int64{1, -2, 3, -4})
	go func() {
		WriteNpy(pw, x)
		pw.Close()
	}()
	y, err := ReadNpy(pr)
	if err != nil {
		t.Fatal(err)
	}
	bitsEqual(t, y, x)
}

// TestReadNpyFileNotRegular: a .npy path that is a FIFO, a device or a
// folder is refused at once, naming the path, not blocked on or read
// without end.
func TestReadNpyFileNotRegular(t *testing.T) {
	safefiletest.RefusesEach(t, "in.npy", func(path string) error { _, err := ReadNpyFile(path); return err })
}

// TestReadNpyFileMax: an array larger than the reader's bound is refused
// from its header, with the sizes, before its data is read.
func TestReadNpyFileMax(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.npy")
	if err := WriteNpyFile(path, &Tensor{Desc: NewDesc(Float32, []uint32{10}), Data: make([]byte, 40)}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNpyFileMax(path, 40); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	_, err := ReadNpyFileMax(path, 39)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "holds 40 bytes, more than the 39") {
		t.Errorf("over the bound: %v", err)
	}
}
