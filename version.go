// Package vkdml holds vkdml's release version, the one every surface
// reports: the vkdml command, libvkdml's vkdml_version(), the Python
// package, vkdml.pc and the CMake package. It lives in the repository's
// VERSION file, not only in a git tag, because a clone (a shallow one, an
// archive, an sdist) may carry no tags.
package vkdml

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed VERSION
var versionFile string

// build is the version's build metadata, set at link time by the Makefile
// (-X github.com/vkdml/vkdml.build=g1234abc) from git describe; empty for a
// build at a release tag and for builds outside the Makefile.
var build = ""

// releasePattern is a release number: MAJOR.MINOR.PATCH, as CMake, pkg-config
// and Python (PEP 440) all compare it. The major is the C interface's ABI
// version (VKDML_ABI_VERSION), which the CMake package's compatibility rule
// and libvkdml's SONAME rely on.
var releasePattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// buildPattern is semantic versioning's build metadata (and PEP 440's local
// version): dot-separated identifiers of ASCII letters and digits.
var buildPattern = regexp.MustCompile(`^[0-9A-Za-z]+(\.[0-9A-Za-z]+)*$`)

// Release is the release number from the VERSION file, e.g. "1.0.0".
func Release() string {
	return strings.TrimSpace(versionFile)
}

// Version is the release number with the build metadata, when the build
// has any: "1.0.0" or "1.0.0+g1234abc.dirty".
func Version() string {
	return WithBuild(build)
}

// WithBuild is the release number with build metadata meta ("" for none).
func WithBuild(meta string) string {
	if meta == "" {
		return Release()
	}
	return Release() + "+" + meta
}

// CheckVersion reports whether v is a release number with optional build
// metadata, as Version returns it.
func CheckVersion(v string) error {
	release, meta, hasMeta := strings.Cut(v, "+")
	if !releasePattern.MatchString(release) {
		return fmt.Errorf("version %q: the release %q is not MAJOR.MINOR.PATCH (decimal, no leading zeros)", v, release)
	}
	if hasMeta && !buildPattern.MatchString(meta) {
		return fmt.Errorf("version %q: the build metadata %q is not dot-separated letters and digits", v, meta)
	}
	return nil
}
