package gpu

import (
	"sync"
	"testing"
)

// TestSinkDeviceConcurrent opens and closes debug devices while validation
// messages for another device are delivered on their shared instance:
// deliver reads each sink's device under the instance's lock, so opening a
// device must set it under that lock too (go test -race reported the
// write).
func TestSinkDeviceConcurrent(t *testing.T) {
	d, err := Open(Options{Debug: true, PipelineCacheDir: "off"})
	if err != nil {
		t.Skipf("no debug device: %v", err)
	}
	defer d.Close()
	in := d.in
	in.mu.Lock()
	own := d.sink.device // messages for d reach only d's sink
	in.mu.Unlock()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				in.deliver(own, "warning: TestSinkDeviceConcurrent: a message for the first device")
			}
		}
	}()
	for range 3 {
		d2, err := Open(Options{Debug: true, PipelineCacheDir: "off"})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
		d2.TakeValidationError()
		d2.Close()
	}
	close(stop)
	wg.Wait()
	d.TakeValidationError() // the test's own messages
}
