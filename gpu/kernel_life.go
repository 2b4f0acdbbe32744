//go:build cgo

package gpu

import "fmt"

// Destroy releases the kernel. It is idempotent, and nil after the device
// is closed (Close destroyed the kernel). When a submitted command list
// that uses the kernel has not been seen to complete, the pipeline is kept
// until it has: no wait is needed before Destroy.
func (k *Kernel) Destroy() error {
	if k == nil || k.d == nil {
		return nil
	}
	d := k.d
	if entered, err := d.enterRelease("Kernel.Destroy"); !entered {
		return err
	}
	defer d.life.RUnlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.released {
		return nil
	}
	k.released = true
	if k.users == 0 && !k.freed {
		k.free()
		d.untrackKernel(k)
	}
	return nil
}

// usableBy reports why list l of device d cannot record k, or nil.
func (k *Kernel) usableBy(d *Device, call string) error {
	if k == nil || k.d == nil {
		return fmt.Errorf("gpu: %s: nil kernel: %w", call, ErrReleased)
	}
	if k.d != d {
		return fmt.Errorf("gpu: %s: kernel %s: %w", call, k.name, ErrForeignDevice)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.released {
		return fmt.Errorf("gpu: %s: kernel %s: %w", call, k.name, ErrReleased)
	}
	return nil
}

// acquire counts a submission that uses k; it fails once k is released.
func (k *Kernel) acquire() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.released {
		return fmt.Errorf("kernel %s was destroyed after the list was recorded: %w", k.name, ErrReleased)
	}
	k.users++
	return nil
}

// unuse ends a use counted by acquire, destroying the kernel if it was
// released meanwhile. The caller holds the device's life lock.
func (k *Kernel) unuse() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.users--
	if k.users == 0 && k.released && !k.freed {
		k.free()
		k.d.untrackKernel(k)
	}
}

func (d *Device) track(k *Kernel) {
	d.objMu.Lock()
	d.kernels[k] = struct{}{}
	d.objMu.Unlock()
}

func (d *Device) untrackKernel(k *Kernel) {
	d.objMu.Lock()
	delete(d.kernels, k)
	d.objMu.Unlock()
}

func (d *Device) trackList(l *CommandList) {
	d.objMu.Lock()
	d.lists[l] = struct{}{}
	d.objMu.Unlock()
}

func (d *Device) untrackList(l *CommandList) {
	d.objMu.Lock()
	delete(d.lists, l)
	delete(d.pending, l)
	d.objMu.Unlock()
}
