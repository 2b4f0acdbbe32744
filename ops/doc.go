// Package ops holds vkdml's operators: for each, its desc (the DirectML
// struct), its validation, its planner (which kernels, with which named
// specialization constants and push words, over which byte ranges) and its
// CPU reference. It needs no cgo and no device: a Plan is plain data that
// the dml package compiles into pipelines, binds and records, and that
// `vkdml plan` prints for any device profile.
//
// Where an operator's parts live, taking MAX_POOLING as the example:
//
//	registry.go          its row: DirectML operator type, constructor,
//	                     kernel strategies, fuzz kind (append-only)
//	maxpool.go           the desc types and their validation
//	maxpool_plan.go      the planner
//	maxpool_ref.go       the CPU reference, the rules read literally
//	facts_maxpool.go     what each of its kernels does per lane (Facts)
//	maxpool*_test.go     rule tables, device tests, validation tests
//	../shaders/maxpool*.comp and variants_maxpool*.go
//	                     the kernels and their variant rows
//	../internal/schema   the desc's fields, from which the C header's
//	                     structs, capi's conversion, Python's ctypes
//	                     structs and the COM structs are generated
//	../dml/maxpool.go    the descs under dml's names
//	../internal/operators/maxpool.go
//	                     the tools' entry (run, bench, plan, demo,
//	                     conformance, parity)
//
// Shared by every operator: op.go (the Desc interface, the Context it is
// validated and planned against, a Plan's kernels, steps and slots, and
// dispatch grids), layout.go (coalescing, boxes, binding windows, the
// plane cut of N×C tensors, and the device-class tuning struct, the one
// place where device-specific choices live), segments.go (a reduction's
// segments, partials and combine workgroup, over plain numbers), tuning.go (those knobs overridden by name: VKDML_TUNING,
// `vkdml bench --tune`), check.go (a plan held to its SPIR-V modules and
// the device's limits), facts.go (per-dispatch facts, read from a plan's
// named constants and push words) and tolerance.go (how a result is
// compared with the reference; exact for every operator today).
//
// The rules the operators implement are numbered in the repository's
// docs/semantics.md ("semantics.md rule N" in comments);
// docs/dml-semantics.md summarizes DirectML's own documentation
// ("dml-semantics.md §N").
package ops
