package dml_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vkdml/vkdml/dml"
	"github.com/vkdml/vkdml/gpu"
	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/faultload"
	"github.com/vkdml/vkdml/tensor"
)

// timeoutCase is a call whose fence waits TestTimeoutEveryWait times out
// one at a time.
type timeoutCase struct {
	name string
	opts dml.DeviceOptions
	// waits says, for each fence wait of the call in order, what its
	// timeout error must contain.
	waits [][]string
	// start makes what the call needs on d. run makes the call (again
	// after a timeout: it must then succeed), check checks the result of
	// the last run, and done releases what start made.
	start func(t *testing.T, d *dml.Device) (run func() error, check func(t *testing.T), done func())
}

// TestTimeoutEveryWait times out each fence wait of each call that waits
// for the GPU (uploads, readbacks, the initializer, executions, Resource
// copies; staged and on mapped memory, in one allocation and across
// several), over the fault-injecting loader. Each timeout must return an
// error wrapping gpu.ErrTimeout that names what timed out, and nothing the
// pending submission uses may be destroyed: neither while the GPU hangs,
// nor when everything the call made is released during the hang. Once the
// GPU is back, the same call succeeds, a fresh one too, the memory held
// returns to what it was, and Close destroys every object. Close during a
// hang returns a timeout and destroys nothing.
func TestTimeoutEveryWait(t *testing.T) {
	if !faultload.Child() {
		faultload.Run(t, "TestTimeoutEveryWait")
		return
	}
	// Real work must finish within these even on a loaded machine; the
	// fault loader reports timeouts at once whatever they are.
	gpu.SubmitTimeout, gpu.CloseTimeout = 30*time.Second, 30*time.Second
	for _, c := range timeoutCases() {
		for _, release := range []bool{false, true} {
			for k := 0; ; k++ {
				name := fmt.Sprintf("%s/wait %d", c.name, k)
				if release {
					name += "/released while pending"
				}
				if !timeoutRun(t, name, c, k, release) {
					break
				}
			}
		}
	}
	for _, staging := range []bool{false, true} {
		closeDuringHang(t, staging)
	}
}

// closeDuringHang closes a device while the GPU hangs on a Compute that
// timed out: Close releases the cached operators but must keep the
// pipelines the pending work uses, returns a timeout naming itself, and
// abandons the device rather than wait without bound or free its memory.
func closeDuringHang(t *testing.T, staging bool) {
	d, err := dml.CreateDevice(dml.DeviceOptions{Flags: dml.CreateDeviceFlagDebug, PipelineCacheDir: "off", ForceStaging: staging})
	if err != nil {
		t.Fatal(err)
	}
	run, _, _ := computeStart(1024, false)(t, d)
	if staging {
		faultload.HangAfter(t, 2) // the uploads pass; the execution hangs
	} else {
		faultload.Hang(t)
	}
	if err := run(); !errors.Is(err, gpu.ErrTimeout) {
		t.Fatalf("staging %v: Compute during a hang: %v", staging, err)
	}
	err = d.Close()
	if !errors.Is(err, gpu.ErrTimeout) || !strings.Contains(err.Error(), "Device.Close: submitted work (1 list(s) not yet seen to finish) did not finish") ||
		!strings.Contains(err.Error(), "abandoned") {
		t.Fatalf("staging %v: Close during a hang: %v", staging, err)
	}
	faultload.CheckClean(t, fmt.Sprintf("staging %v: Close during a hang", staging))
	faultload.Unhang(t)
	if err := d.Close(); err != nil {
		t.Fatalf("staging %v: Close again: %v", staging, err)
	}
}

// timeoutRun times out wait k of c's call on a new device, and reports
// false when the call made fewer than k+1 waits.
func timeoutRun(t *testing.T, name string, c timeoutCase, k int, release bool) bool {
	t.Helper()
	opts := c.opts
	opts.Flags, opts.PipelineCacheDir = dml.CreateDeviceFlagDebug, "off"
	d, err := dml.CreateDevice(opts)
	if err != nil {
		t.Fatalf("%s: CreateDevice: %v", name, err)
	}
	base := d.GPU().Allocated()
	run, check, done := c.start(t, d)
	faultload.HangAfter(t, k)
	err = run()
	if err == nil {
		faultload.Unhang(t)
		if k != len(c.waits) {
			t.Errorf("%s: the call made %d fence waits, want %d", name, k, len(c.waits))
		}
		check(t)
		done()
		if err := d.Close(); err != nil {
			t.Fatalf("%s: Close: %v", name, err)
		}
		faultload.CheckClean(t, name)
		return false
	}
	if !errors.Is(err, gpu.ErrTimeout) || !errors.Is(err, hresult.E_FAIL) {
		t.Fatalf("%s: want a timeout (E_FAIL wrapping gpu.ErrTimeout), got %v", name, err)
	}
	if k < len(c.waits) {
		for _, w := range c.waits[k] {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error does not say %q:\n%v", name, w, err)
			}
		}
	}
	if release {
		done() // everything the call made, while the GPU still "runs" it
	}
	faultload.CheckClean(t, name+", during the hang")
	faultload.Unhang(t)
	if !release {
		if err := run(); err != nil {
			t.Fatalf("%s: the call again once the GPU is back: %v", name, err)
		}
		check(t)
		done()
	}
	run, check, done = c.start(t, d)
	if err := run(); err != nil {
		t.Fatalf("%s: a new call once the GPU is back: %v", name, err)
	}
	check(t)
	done()
	// The work that timed out is freed by the first call that sees it done;
	// the real GPU may finish it later than the fault loader lets on, so
	// wait for it before counting.
	if err := d.GPU().WaitIdle(); err != nil {
		t.Fatalf("%s: WaitIdle: %v", name, err)
	}
	if got := d.GPU().Allocated(); got != base {
		t.Errorf("%s: %d bytes of device memory held after the later call, %d before the timeout", name, got, base)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("%s: Close: %v", name, err)
	}
	faultload.CheckClean(t, name)
	return true
}

func timeoutCases() []timeoutCase {
	upload := func(field string, off int) []string {
		return []string{field + ": the upload timed out", fmt.Sprintf("Buffer.Write: the staging upload of 4096 bytes at offset %d did not finish", off)}
	}
	readback := func(field string, off int) []string {
		return []string{field + ": the readback timed out", fmt.Sprintf("Buffer.Read: the staging readback of 4096 bytes at offset %d did not finish", off)}
	}
	exec := []string{"the execution timed out", "CommandList.Wait: the submitted list did not finish"}
	execInit := []string{"the execution (initializer and dispatch) timed out"}
	staged := dml.DeviceOptions{ForceStaging: true}
	split := dml.DeviceOptions{ForceStaging: true, MaxAllocation: dml.MinAllocation}
	var cases []timeoutCase
	for _, owned := range []bool{false, true} {
		name, e := "Compute", exec
		if owned { // not cached: initialized in the same list
			name, e = "Compute with an initializer", execInit
		}
		cases = append(cases,
			timeoutCase{name + "/mapped", dml.DeviceOptions{}, [][]string{e}, computeStart(1024, owned)},
			timeoutCase{name + "/staged", staged, [][]string{upload("inputs[0]", 0), upload("outputs[0]", 0), e, readback("outputs[0]", 0)}, computeStart(1024, owned)})
	}
	// A ticket plan's cached entry: the run that timed out evicts it
	// (its ticket's state unknown), and the run after compiles afresh.
	cases = append(cases, timeoutCase{"Compute with a ticket/mapped", dml.DeviceOptions{Tuning: gpuTuning()}, [][]string{execInit}, ticketComputeStart})
	cases = append(cases,
		timeoutCase{"Compute/staged across allocations", split, [][]string{
			upload("inputs[0]", 0), upload("inputs[0]", 4096), upload("outputs[0]", 0), upload("outputs[0]", 4096),
			exec, readback("outputs[0]", 0), readback("outputs[0]", 4096)}, computeStart(2048, false)},
		timeoutCase{"Prepare/mapped", dml.DeviceOptions{}, [][]string{{"Prepare(ELEMENT_WISE_IDENTITY): the initializer timed out"}}, prepareStart},
		timeoutCase{"Prepare/staged", staged, [][]string{{"Prepare(ELEMENT_WISE_IDENTITY): the initializer timed out"}}, prepareStart},
		timeoutCase{"Prepared.Run/mapped", dml.DeviceOptions{}, [][]string{exec}, preparedRunStart},
		timeoutCase{"Prepared.Run/staged", staged, [][]string{upload("inputs[0]", 0), exec, readback("outputs[0]", 0)}, preparedRunStart},
		timeoutCase{"CommandList.Wait/mapped", dml.DeviceOptions{}, [][]string{{"CommandList.Wait: gpu: CommandList.Wait: the submitted list did not finish", "the list stays pending"}}, listWaitStart},
		timeoutCase{"Resource/staged", staged, [][]string{
			{"Resource.Write: gpu: Buffer.Write: the staging upload of 8192 bytes at offset 0 did not finish"},
			{"Resource.Fill: gpu: Buffer.Fill: the fill of 256 bytes at offset 512 did not finish"},
			{"Resource.Read: gpu: Buffer.Read: the staging readback of 8192 bytes at offset 0 did not finish"}}, resourceStart},
		timeoutCase{"Resource/staged across allocations", split, [][]string{
			{"the staging upload of 4096 bytes at offset 0 "}, {"the staging upload of 4096 bytes at offset 4096 "},
			{"the fill of 256 bytes at offset 512 "},
			{"the staging readback of 4096 bytes at offset 0 "}, {"the staging readback of 4096 bytes at offset 4096 "}}, resourceStart},
	)
	return cases
}

// identityInput is n distinct FLOAT32 values.
func identityInput(n uint32) *tensor.Tensor {
	in := &tensor.Tensor{Desc: tensor.NewDesc(tensor.Float32, []uint32{n}), Data: make([]byte, 4*n)}
	for i := range n {
		binary.LittleEndian.PutUint32(in.Data[4*i:], math.Float32bits(float32(i)+0.5))
	}
	return in
}

// computeStart runs Compute of an identity over n elements (its input
// OWNED_BY_DML when owned, which needs the initializer).
func computeStart(n uint32, owned bool) func(*testing.T, *dml.Device) (func() error, func(*testing.T), func()) {
	return func(t *testing.T, d *dml.Device) (func() error, func(*testing.T), func()) {
		in := identityInput(n)
		desc := &dml.ElementWiseIdentity{Input: in.Desc.Clone(), Output: in.Desc.Clone()}
		if owned {
			desc.Input.Flags = tensor.FlagOwnedByDML
		}
		var outs []*tensor.Tensor
		run := func() (err error) {
			outs, err = d.Compute(desc, in)
			return err
		}
		check := func(t *testing.T) {
			if len(outs) != 1 || !bytes.Equal(outs[0].Data, in.Data) {
				t.Fatal("Compute returned wrong output")
			}
		}
		return run, check, func() {}
	}
}

// ticketComputeStart runs Compute of a whole-tensor ARGMAX whose GPU plan
// (gpuTuning) draws a ticket from its cached persistent resource; done
// clears the cache, which frees that resource.
func ticketComputeStart(t *testing.T, d *dml.Device) (func() error, func(*testing.T), func()) {
	desc := ticketDescs()[0]
	in := identityInput(desc.Input.Sizes[0])
	var outs []*tensor.Tensor
	run := func() (err error) {
		outs, err = d.Compute(desc, in)
		return err
	}
	check := func(t *testing.T) {
		if err := checkOutput(desc, in, outs); err != nil {
			t.Fatal(err)
		}
	}
	return run, check, func() { dml.ClearComputeCache(d) } // the cache's persistent buffer
}

// identityDesc is an identity over 1024 FLOAT32 values.
func identityDesc() *dml.ElementWiseIdentity {
	td := tensor.NewDesc(tensor.Float32, []uint32{1024})
	return &dml.ElementWiseIdentity{Input: td.Clone(), Output: td.Clone()}
}

func prepareStart(t *testing.T, d *dml.Device) (func() error, func(*testing.T), func()) {
	var p *dml.Prepared
	run := func() (err error) {
		p, err = d.Prepare(identityDesc(), dml.PrepareOptions{})
		return err
	}
	check := func(t *testing.T) {
		in, out := identityInput(1024), make([]byte, 4096)
		if err := p.Run([][]byte{in.Data}, [][]byte{out}); err != nil || !bytes.Equal(out, in.Data) {
			t.Fatalf("the prepared operator's run: %v", err)
		}
	}
	return run, check, func() { p.Release() }
}

// preparedRunStart runs a prepared operator that profiles (its list
// writes timestamps, so a query pool is in flight too).
func preparedRunStart(t *testing.T, d *dml.Device) (func() error, func(*testing.T), func()) {
	p, err := d.Prepare(identityDesc(), dml.PrepareOptions{Profiling: true})
	if err != nil {
		t.Fatal(err)
	}
	in, out := identityInput(1024), make([]byte, 4096)
	run := func() error { return p.Run([][]byte{in.Data}, [][]byte{out}) }
	check := func(t *testing.T) {
		if !bytes.Equal(out, in.Data) {
			t.Fatal("Prepared.Run returned wrong output")
		}
		if _, err := p.List().DispatchTimes(); err != nil {
			t.Fatalf("DispatchTimes: %v", err)
		}
	}
	return run, check, p.Release
}

// listWaitStart executes a prepared operator's list and waits for it; a
// run after a timeout only waits.
func listWaitStart(t *testing.T, d *dml.Device) (func() error, func(*testing.T), func()) {
	p, err := d.Prepare(identityDesc(), dml.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := identityInput(1024)
	if err := p.InputBuffer(0).Write(0, in.Data); err != nil {
		t.Fatal(err)
	}
	executed := false
	run := func() error {
		if !executed {
			if err := p.List().Execute(); err != nil {
				return err
			}
			executed = true
		}
		return p.List().Wait()
	}
	check := func(t *testing.T) {
		out := make([]byte, 4096)
		if err := p.OutputBuffer(0).Read(0, out); err != nil || !bytes.Equal(out, in.Data) {
			t.Fatalf("the list's output: %v", err)
		}
	}
	return run, check, p.Release
}

// resourceStart writes 8192 bytes, fills 256 of them and reads them back.
func resourceStart(t *testing.T, d *dml.Device) (func() error, func(*testing.T), func()) {
	r, err := d.CreateBuffer(8192)
	if err != nil {
		t.Fatal(err)
	}
	data := identityInput(2048).Data
	got := make([]byte, 8192)
	run := func() error {
		if err := r.Write(0, data); err != nil {
			return err
		}
		if err := r.Fill(512, 256, 0xDEADBEEF); err != nil {
			return err
		}
		return r.Read(0, got)
	}
	check := func(t *testing.T) {
		want := bytes.Clone(data)
		for i := 512; i < 768; i += 4 {
			binary.LittleEndian.PutUint32(want[i:], 0xDEADBEEF)
		}
		if !bytes.Equal(got, want) {
			t.Fatal("Resource read back wrong bytes")
		}
	}
	return run, check, r.Release
}
