package ops

import (
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"
)

// seededRand is testutil.Rand for this package's internal tests, which
// testutil (it imports ops) cannot serve: a generator seeded from
// $VKDML_SEED or the clock, with the seed logged for a replay.
func seededRand(t testing.TB) (int64, *rand.Rand) {
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
	return seed, rand.New(rand.NewSource(seed))
}
