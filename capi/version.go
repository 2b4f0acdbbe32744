package main

/*
void vkdmlc_set_version(const char *version);
*/
import "C"

import (
	"sync"

	version "github.com/vkdml/vkdml"
)

// versionText is vkdml_version()'s string: C memory, made once and never
// freed (the function returns static storage).
var versionText = sync.OnceValue(func() *C.char { return C.CString(version.Version()) })

// init hands the string to the C side, which answers vkdml_version() from
// then on without entering Go.
func init() {
	C.vkdmlc_set_version(versionText())
}

// vkdmlgo_version returns no HRESULT, so it runs export for its recover
// alone: a panic leaves the string NULL, which vkdml_version answers as "".
//
//export vkdmlgo_version
func vkdmlgo_version() (v *C.char) {
	export("vkdml_version", func(string) error { v = versionText(); return nil })
	return v
}
