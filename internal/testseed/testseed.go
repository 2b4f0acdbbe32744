// Package testseed seeds randomized tests: from $VKDML_SEED, to replay a
// failure, or else from the clock, with the seed logged either way. It
// imports nothing of vkdml, so that any package's tests can use it: ops'
// internal tests and internal/parity's, which testutil (it imports dml
// and gpu) cannot serve, as well as testutil itself.
package testseed

import (
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"
)

// Seed returns $VKDML_SEED, or the clock's nanoseconds where it is unset,
// and logs it with the command line that replays it; a VKDML_SEED that is
// not an integer fails the test.
func Seed(t testing.TB) int64 {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("VKDML_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("VKDML_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with VKDML_SEED=%d)", seed, seed)
	return seed
}

// Rand returns Seed's seed and a generator seeded with it.
func Rand(t testing.TB) (int64, *rand.Rand) {
	t.Helper()
	seed := Seed(t)
	return seed, rand.New(rand.NewSource(seed))
}
