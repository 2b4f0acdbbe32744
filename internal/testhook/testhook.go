// Package testhook holds the points where tests inject faults that no
// input can cause, such as a panic in an operator's planner. Every hook is
// nil in a production build: only test code sets them (a _test.go file,
// or a file built only with the vkdmltesthooks tag, as capi's test build
// of libvkdml), and the package is internal to vkdml.
package testhook

// BeforePlan, when not nil, runs with each desc just before its planner
// (in dml, inside the recovery that turns a planner's panic into an
// error), so that a test can panic where a planner would.
var BeforePlan func(desc any)
