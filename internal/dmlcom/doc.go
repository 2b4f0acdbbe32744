// Package dmlcom drives the real DirectML through COM on Windows (or
// Wine), without cgo: it loads d3d12.dll, dxgi.dll and DirectML.dll,
// creates a D3D12 device on an adapter and a DML device on it, and runs
// parity cases (internal/parity) case by case: create, compile and
// initialize the operator, bind, record, execute and read back. The parity
// runner (parity/cmd/dmlrunner) and `vkdml parity --live` share it. Every
// file but this one is Windows-only.
package dmlcom
