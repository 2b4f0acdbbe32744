package main

import (
	"github.com/vkdml/vkdml/internal/lru"
)

// runCacheSize bounds each device's cache of one-shot operators.
const runCacheSize = 16

// runCache keeps the operators vkdml_run prepared, keyed by their desc
// (lru.Key), so that running a desc seen before skips validation,
// compilation, allocation and initialization, as dml.Device.Compute's
// cache does. The least recently used entry is released when a new one
// passes the bound; one still running is released by its last user.
type runCache = lru.Cache[*preparedOp]

// runEntry is a cached operator in use; an operator whose desc has no key
// runs in an lru.Detached entry, released when its run is done.
type runEntry = lru.Entry[*preparedOp]

func newRunCache() *runCache { return lru.New(runCacheSize, (*preparedOp).releaseLocked) }
