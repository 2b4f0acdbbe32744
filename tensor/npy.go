package tensor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vkdml/vkdml/internal/safefile"
)

// This file reads and writes NumPy .npy files (format versions 1.0, 2.0 and
// 3.0, https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
//
// The header parser is written here rather than taken from
// github.com/sbinet/npyio/npy (v0.6.0), because that reader is not safe on
// untrusted input: it allocates the declared header length (up to 4 GiB in
// version 2) before reading it, panics on a header without a newline
// (hdr[:LastIndexByte(...)] with -1) or with keys in another order (slice
// bounds computed from bytes.Index results), and only understands the exact
// spacing np.save emits. Here every check happens before any allocation
// larger than the bytes already read, and every failure says what is wrong.

// ErrBadNpy is wrapped by every error that ReadNpy returns for a file that
// is not a well-formed .npy vkdml can load (bad magic, version, header,
// dtype, shape, or truncated data); test with errors.Is.
var ErrBadNpy = errors.New("tensor: malformed .npy")

const (
	npyMagic = "\x93NUMPY"
	// maxNpyHeaderLen bounds the header dictionary. A rank-8 header needs
	// under 200 bytes; np.load itself refuses more than 10000 by default.
	maxNpyHeaderLen = 1 << 16
	// npyReadChunk is how much ReadNpy allocates ahead of the bytes it has
	// actually read when the stream's length is unknown.
	npyReadChunk = 1 << 20
	// npyAlign is the alignment of the data start that np.save uses.
	npyAlign = 64
	// npyGrowthDigits is numpy's GROWTH_AXIS_MAX_DIGITS: np.save pads the
	// header so the outer dimension can grow to 21 digits in place.
	npyGrowthDigits = 21
)

func badNpy(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadNpy, fmt.Sprintf(format, args...))
}

var supportedNpyDescrs = func() string {
	s := make([]string, len(AllTypes))
	for i, dt := range AllTypes {
		s[i] = dt.NumpyDescr()
	}
	return strings.Join(s, ", ") + " (or the big-endian '>' forms)"
}()

// ReadNpy reads one .npy array from r.
//
// A C-order file gives a packed tensor. A Fortran-order file gives a tensor
// whose Sizes are the logical shape and whose Strides are column-major
// (1, shape[0], shape[0]·shape[1], ...), with Data exactly as stored: no
// transposition. Big-endian files are byte-swapped to little-endian. A
// rank-0 (scalar) array is read as shape [1], because DirectML tensors have
// rank 1 to 8. Shapes with a 0, more than 8 dimensions, or more than 2^32-1
// elements are rejected, since no DirectML tensor can hold them.
//
// Before allocating the data, ReadNpy compares the byte count the shape
// implies with what is available: when r is an io.Seeker (a file, a
// bytes.Reader) it measures the remaining length, and otherwise it reads
// progressively, never holding more than twice what it has read plus 1 MiB.
// So a lying header fails fast with a small allocation. Bytes after the
// array are left unread.
func ReadNpy(r io.Reader) (*Tensor, error) {
	return readNpy(r, math.MaxUint64)
}

// readNpy is ReadNpy refusing, from the header and before allocating, an
// array of more than maxData bytes.
func readNpy(r io.Reader, maxData uint64) (*Tensor, error) {
	h, err := readNpyHeader(r)
	if err != nil {
		return nil, err
	}
	if need := h.dataBytes(); need > maxData {
		return nil, fmt.Errorf("%w: shape (%s) of %s holds %d bytes, more than the %d the reader expects", ErrTooLarge, joinUints(h.shape, ", "), h.descr, need, maxData)
	}
	avail := int64(-1)
	if s, ok := r.(io.Seeker); ok {
		avail = remaining(s)
		// Pipes, devices and /proc files can seek yet report no length.
		if f, ok := r.(*os.File); ok {
			if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
				avail = -1
			}
		}
	}
	return readNpyData(r, h, avail)
}

// ErrTooLarge is wrapped by the error ReadNpyFileMax returns for an array
// larger than its bound.
var ErrTooLarge = errors.New("tensor: .npy array larger than expected")

// ReadNpyFile reads the .npy file at path, which must be a regular file
// (a FIFO or a device such as /dev/zero is refused before it is read; see
// internal/safefile). Its header bounds what is allocated: at most 2^32-1
// elements (DirectML's limit on a tensor, which CreateOperator applies
// too), and no more than the file holds. Errors name the file.
func ReadNpyFile(path string) (*Tensor, error) {
	return ReadNpyFileMax(path, math.MaxUint64)
}

// ReadNpyFileMax is ReadNpyFile for a reader that knows how large the
// array must be: one of more than maxData bytes of data is refused from
// its header, before anything is allocated (errors.Is ErrTooLarge).
func ReadNpyFileMax(path string, maxData uint64) (*Tensor, error) {
	f, _, err := safefile.Open(path, -1)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := readNpy(f, maxData)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// remaining returns the number of bytes between the current position and
// the end of s, or -1 when s cannot tell (a pipe, say).
func remaining(s io.Seeker) int64 {
	cur, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1
	}
	end, err := s.Seek(0, io.SeekEnd)
	if _, err2 := s.Seek(cur, io.SeekStart); err2 != nil {
		return -1
	}
	if err != nil || end < cur {
		return -1
	}
	return end - cur
}

// npyHeader is the parsed header.
type npyHeader struct {
	descr     string
	dt        DataType
	bigEndian bool
	fortran   bool
	shape     []uint32 // validated: rank 1..8, no zeros, ≤ 2^32-1 elements
}

func readNpyHeader(r io.Reader) (*npyHeader, error) {
	var pre [10]byte
	n, err := io.ReadFull(r, pre[:8])
	if m := min(n, len(npyMagic)); string(pre[:m]) != npyMagic[:m] {
		return nil, badNpy("magic: file starts with %q, want %q", pre[:m], npyMagic)
	}
	if err != nil {
		return nil, readErr(err, "magic and version: only %d of 8 bytes", n)
	}
	major, minor := pre[6], pre[7]
	var hlen uint64
	switch {
	case major == 1 && minor == 0:
		if n, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, readErr(err, "header length: only %d of 2 bytes", n)
		}
		hlen = uint64(binary.LittleEndian.Uint16(pre[8:10]))
	case (major == 2 || major == 3) && minor == 0:
		var b [4]byte
		if n, err := io.ReadFull(r, b[:]); err != nil {
			return nil, readErr(err, "header length: only %d of 4 bytes", n)
		}
		hlen = uint64(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, badNpy("version: %d.%d is not a .npy format version (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if hlen > maxNpyHeaderLen {
		return nil, badNpy("header length: %d bytes exceeds the %d-byte limit", hlen, maxNpyHeaderLen)
	}
	hdr := make([]byte, hlen)
	if n, err := io.ReadFull(r, hdr); err != nil {
		return nil, readErr(err, "header length: %d bytes declared but only %d follow", hlen, n)
	}
	return parseNpyHeader(hdr)
}

// readErr turns a short read into an ErrBadNpy "truncated" error and
// passes other I/O errors through.
func readErr(err error, format string, args ...any) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return badNpy("truncated: "+format, args...)
	}
	return fmt.Errorf("tensor: reading .npy: %w", err)
}

func parseNpyHeader(hdr []byte) (*npyHeader, error) {
	p := dictParser{s: hdr}
	descr, fortran, shape, err := p.parse()
	if err != nil {
		return nil, err
	}
	h := &npyHeader{descr: descr, fortran: fortran}
	if h.dt, h.bigEndian, err = parseDescr(descr); err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		shape = []int64{1} // a NumPy scalar; DirectML tensors have rank ≥ 1
	}
	if len(shape) > MaxDimensionCount {
		return nil, badNpy("shape: %d dimensions, more than DirectML's %d", len(shape), MaxDimensionCount)
	}
	count := uint64(1)
	for i, s := range shape {
		switch {
		case s < 0:
			return nil, badNpy("shape: dimension %d is %d, negative", i, s)
		case s == 0:
			return nil, badNpy("shape: dimension %d is 0; DirectML tensors cannot have a size of 0", i)
		case s > math.MaxUint32:
			return nil, badNpy("shape: dimension %d is %d, more than 2^32-1", i, s)
		}
		h.shape = append(h.shape, uint32(s))
		count = mulSat(count, uint64(s))
	}
	if count > MaxElementCount {
		return nil, badNpy("shape: %s holds %s elements, more than DirectML's limit of 2^32-1", Shape(shape), countString(count))
	}
	return h, nil
}

// parseDescr maps a NumPy dtype string to a DataType.
func parseDescr(descr string) (DataType, bool, error) {
	if len(descr) >= 2 {
		order, code := descr[0], descr[1:]
		for _, dt := range AllTypes {
			if code != dt.NumpyDescr()[1:] {
				continue
			}
			if dt.Size() == 1 {
				if strings.IndexByte("<>|=", order) >= 0 {
					return dt, false, nil
				}
				break
			}
			switch order {
			case '<':
				return dt, false, nil
			case '>':
				return dt, true, nil
			case '|', '=':
				return Unknown, false, badNpy("descr: %q has byte order %q, which does not fix the byte order of a %d-byte type; supported: %s", descr, order, dt.Size(), supportedNpyDescrs)
			}
		}
		if code == "f8" && strings.IndexByte("<>=", order) >= 0 {
			return Unknown, false, badNpy("descr: %q is FLOAT64, which vkdml does not support; supported: %s", descr, supportedNpyDescrs)
		}
	}
	return Unknown, false, badNpy("descr: unsupported dtype %q; supported: %s", descr, supportedNpyDescrs)
}

// dictParser parses the header: a Python dict literal with exactly the keys
// 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple
// of integers), in any order, followed only by whitespace. This is the
// subset of Python literal syntax np.load accepts in practice.
type dictParser struct {
	s []byte
	i int
}

func (p *dictParser) skipSpace() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *dictParser) peek() byte {
	p.skipSpace()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// found describes the next character for error messages.
func (p *dictParser) found() string {
	if p.peek() == 0 && p.i >= len(p.s) {
		return "end of header"
	}
	// Quote the character, not its first byte: %q of a lone byte such as
	// 0xC2 (the start of a UTF-8 non-breaking space) prints 'Â'.
	r, _ := utf8.DecodeRune([]byte(p.s[p.i:min(p.i+utf8.UTFMax, len(p.s))]))
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02X at byte %d", p.s[p.i], p.i)
	}
	return fmt.Sprintf("%+q at byte %d", r, p.i)
}

func (p *dictParser) expect(c byte, what string) error {
	if p.peek() != c {
		return badNpy("header dict: want %q %s, found %s", c, what, p.found())
	}
	p.i++
	return nil
}

func (p *dictParser) parse() (descr string, fortran bool, shape []int64, err error) {
	if err = p.expect('{', "to open the dict"); err != nil {
		return
	}
	seen := map[string]bool{}
	for p.peek() != '}' {
		var key string
		if key, err = p.str("a key"); err != nil {
			return
		}
		if seen[key] {
			err = badNpy("header dict: key %q appears twice", key)
			return
		}
		seen[key] = true
		if err = p.expect(':', "after key "+strconv.Quote(key)); err != nil {
			return
		}
		switch key {
		case "descr":
			if c := p.peek(); c == '[' || c == '{' {
				err = badNpy("descr: structured dtypes (%c...) are not supported; supported: %s", c, supportedNpyDescrs)
				return
			}
			if descr, err = p.str("the descr value"); err != nil {
				return
			}
		case "fortran_order":
			if fortran, err = p.boolean(); err != nil {
				return
			}
		case "shape":
			if shape, err = p.tuple(); err != nil {
				return
			}
		default:
			err = badNpy("header dict: unexpected key %q (want exactly 'descr', 'fortran_order' and 'shape')", key)
			return
		}
		if p.peek() == ',' {
			p.i++
		} else if p.peek() != '}' {
			err = badNpy("header dict: want ',' or '}' after the value of %q, found %s", key, p.found())
			return
		}
	}
	p.i++ // '}'
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			err = badNpy("header dict: missing key %q", k)
			return
		}
	}
	if p.peek(); p.i < len(p.s) {
		err = badNpy("header dict: unexpected %s after the closing '}'", p.found())
	}
	return
}

// str parses a quoted string without escapes (none of the valid keys or
// dtype strings need one).
func (p *dictParser) str(what string) (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", badNpy("header dict: want a quoted string for %s, found %s", what, p.found())
	}
	start := p.i + 1
	for j := start; j < len(p.s); j++ {
		switch p.s[j] {
		case q:
			p.i = j + 1
			return string(p.s[start:j]), nil
		case '\\':
			return "", badNpy("header dict: unsupported character %q in the string for %s", p.s[j], what)
		case '\n':
			return "", badNpy("header dict: unterminated string for %s", what)
		}
	}
	return "", badNpy("header dict: unterminated string for %s", what)
}

func (p *dictParser) boolean() (bool, error) {
	p.skipSpace()
	rest := p.s[p.i:]
	for _, v := range []string{"True", "False"} {
		if strings.HasPrefix(string(rest), v) && !isIdentByte(rest, len(v)) {
			p.i += len(v)
			return v == "True", nil
		}
	}
	return false, badNpy("fortran_order: want True or False, found %s", p.found())
}

func isIdentByte(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	c := b[i]
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// tuple parses "()", "(n,)" or "(n, m, ...)" with an optional trailing
// comma; integers may carry Python 2's "L" suffix. "(n)" is not a tuple in
// Python, so it is rejected.
func (p *dictParser) tuple() ([]int64, error) {
	if p.peek() != '(' {
		return nil, badNpy("shape: want a tuple such as (2, 3), found %s", p.found())
	}
	p.i++
	var dims []int64
	commas := 0
	for p.peek() != ')' {
		v, err := p.integer(len(dims))
		if err != nil {
			return nil, err
		}
		dims = append(dims, v)
		if p.peek() == ',' {
			p.i++
			commas++
		} else if p.peek() != ')' {
			return nil, badNpy("shape: want ',' or ')' after dimension %d, found %s", len(dims)-1, p.found())
		}
	}
	p.i++
	if len(dims) == 1 && commas == 0 {
		return nil, badNpy("shape: (%d) is not a tuple; a 1-D shape is written (%d,)", dims[0], dims[0])
	}
	return dims, nil
}

func (p *dictParser) integer(idx int) (int64, error) {
	p.skipSpace()
	start := p.i
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '+') {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == digits {
		p.i = start
		return 0, badNpy("shape: want an integer for dimension %d, found %s", idx, p.found())
	}
	text := string(p.s[start:p.i])
	if p.i < len(p.s) && (p.s[p.i] == 'L' || p.s[p.i] == 'l') {
		p.i++
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, badNpy("shape: dimension %d is %s, out of range", idx, text)
	}
	return v, nil
}

// readNpyData reads the array body described by h. avail is the number of
// bytes known to remain in r, or -1 when unknown.
// dataBytes is the size of the array's data.
func (h *npyHeader) dataBytes() uint64 {
	count := uint64(h.dt.Size())
	for _, s := range h.shape {
		count *= uint64(s) // cannot overflow: parseNpyHeader capped the elements at 2^32-1
	}
	return count
}

func readNpyData(r io.Reader, h *npyHeader, avail int64) (*Tensor, error) {
	es := uint64(h.dt.Size())
	need := h.dataBytes()
	total := CalcBufferTensorSize(h.dt, h.shape, nil)
	shapeStr := func() string { return joinUints(h.shape, ", ") }
	if avail >= 0 && uint64(avail) < need {
		return nil, badNpy("truncated: shape (%s) of %s needs %d bytes of data but only %d follow the header", shapeStr(), h.descr, need, avail)
	}
	var data []byte
	if avail >= 0 {
		data = make([]byte, total)
		if n, err := io.ReadFull(r, data[:need]); err != nil {
			return nil, readErr(err, "shape (%s) of %s needs %d bytes of data but only %d follow the header", shapeStr(), h.descr, need, n)
		}
	} else {
		// Unknown length: grow with what actually arrives, so a header that
		// lies about the shape costs at most one chunk.
		data = make([]byte, 0, min(total, npyReadChunk))
		for uint64(len(data)) < need {
			if len(data) == cap(data) {
				grown := make([]byte, len(data), min(total, 2*uint64(cap(data))))
				copy(grown, data)
				data = grown
			}
			end := int(min(uint64(cap(data)), need))
			n, err := io.ReadFull(r, data[len(data):end])
			data = data[:len(data)+n]
			if err != nil {
				return nil, readErr(err, "shape (%s) of %s needs %d bytes of data but only %d follow the header", shapeStr(), h.descr, need, len(data))
			}
		}
		data = data[:total] // the padding to 4 bytes is already zero
	}
	if h.bigEndian {
		swapBytes(data[:need], int(es))
	}
	d := Desc{DataType: h.dt, Sizes: h.shape, TotalTensorSizeInBytes: total}
	if h.fortran && len(h.shape) > 1 {
		d.Strides = make([]uint32, len(h.shape))
		acc := uint32(1)
		for i, s := range h.shape {
			d.Strides[i] = acc
			acc *= s // ≤ 2^32-1 elements in all, so no wrap before the last use
		}
	}
	return &Tensor{Desc: d, Data: data}, nil
}

func joinUints(v []uint32, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(s, sep)
}

// swapBytes reverses the byte order of each es-byte element of b.
func swapBytes(b []byte, es int) {
	switch es {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

// npyHeaderBytes returns the preamble and header np.save would write for a
// C-order array of dt with shape sizes: magic, version 1.0, the dict with
// sorted keys, numpy's growth padding, spaces and a newline up to a
// 64-byte boundary.
func npyHeaderBytes(dt DataType, sizes []uint32) []byte {
	shape := "(" + joinUints(sizes, ", ") + ")"
	if len(sizes) == 1 {
		shape = "(" + joinUints(sizes, "") + ",)"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", dt.NumpyDescr(), shape)
	if len(sizes) > 0 {
		first := len(strconv.FormatUint(uint64(sizes[0]), 10))
		dict += strings.Repeat(" ", max(0, npyGrowthDigits-first))
	}
	hlen := len(dict) + 1 // the newline
	pad := npyAlign - (len(npyMagic)+2+2+hlen)%npyAlign
	if pad == npyAlign {
		pad = 0
	}
	out := make([]byte, 0, len(npyMagic)+4+hlen+pad)
	out = append(out, npyMagic...)
	out = append(out, 1, 0)
	out = binary.LittleEndian.AppendUint16(out, uint16(hlen+pad))
	out = append(out, dict...)
	out = append(out, strings.Repeat(" ", pad)...)
	return append(out, '\n')
}

// WriteNpy writes t to w as a C-order .npy file (version 1.0, byte-for-byte
// what np.save writes for the same array). Strided, padded or broadcast
// tensors are packed first. t must pass Tensor.Validate; nothing is written
// otherwise.
func WriteNpy(w io.Writer, t *Tensor) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("tensor: WriteNpy: %w", err)
	}
	if !t.Desc.IsPacked() {
		t = t.ToPacked()
	}
	if _, err := w.Write(npyHeaderBytes(t.Desc.DataType, t.Desc.Sizes)); err != nil {
		return err
	}
	n := t.Desc.ElementCount() * uint64(t.Desc.DataType.Size())
	_, err := w.Write(t.Data[:n])
	return err
}

// WriteNpyFile writes t to path atomically (safefile.WriteFile): path
// holds either the old content or the whole new file. On any error the
// temporary file is removed and path is untouched. The new file's mode is
// 0644.
func WriteNpyFile(path string, t *Tensor) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("tensor: WriteNpyFile %s: %w", path, err)
	}
	return safefile.WriteFile(path, 0o644, func(w io.Writer) error {
		if err := WriteNpy(w, t); err != nil {
			return fmt.Errorf("tensor: writing %s: %w", path, err)
		}
		return nil
	})
}
