//go:build vkdmltesthooks

package main

import (
	"os"

	"github.com/vkdml/vkdml/internal/testhook"
	"github.com/vkdml/vkdml/ops"
)

// In the test build of libvkdml only (go build -tags vkdmltesthooks; no
// release or make target builds it), $VKDML_TEST_PLANNER_PANIC=TYPE makes
// the planner of every TYPE operator (e.g. ARGMAX) panic, so that the C
// and Python tests can see what a caller gets for a bug in a planner.
func init() {
	kind := os.Getenv("VKDML_TEST_PLANNER_PANIC")
	if kind == "" {
		return
	}
	testhook.BeforePlan = func(desc any) {
		if d, ok := desc.(ops.Desc); ok && d.OperatorType() == kind {
			panic("injected by VKDML_TEST_PLANNER_PANIC\nwith a second line")
		}
	}
}
