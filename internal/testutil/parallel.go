package testutil

import (
	"sync"
	"testing"
)

// StartTogether runs f(0) to f(n-1), each in a goroutine of its own, all
// released at once after the last has started, so that they race as
// closely as the scheduler allows. wait waits for every goroutine and
// returns what f(g) returned at index g.
func StartTogether(n int, f func(g int) error) (wait func() []error) {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[g] = f(g)
		}()
	}
	close(start)
	return func() []error {
		wg.Wait()
		return errs
	}
}

// InParallel runs f(0) to f(n-1) in n goroutines started together
// (StartTogether) and fails t with every error they return.
func InParallel(t testing.TB, n int, f func(g int) error) {
	t.Helper()
	for _, err := range StartTogether(n, f)() {
		if err != nil {
			t.Error(err)
		}
	}
}
