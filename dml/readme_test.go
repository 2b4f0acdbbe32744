package dml_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEQuickStart keeps the README's quick start a complete program
// whose body is ExampleDevice_Compute's, verbatim, so that it compiles and
// its output is checked by go test.
func TestREADMEQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section, ok := strings.CutPrefix(string(readme)[strings.Index(string(readme), "## Using it"):], "## Using it")
	if !ok {
		t.Fatal(`README.md has no "## Using it" section`)
	}
	start := strings.Index(section, "```go\n")
	end := strings.Index(section[start+6:], "```\n")
	if start < 0 || end < 0 {
		t.Fatal(`no go code block under "## Using it"`)
	}
	block := section[start+6 : start+6+end]

	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	const head = "func ExampleDevice_Compute() {\n"
	i := strings.Index(string(src), head)
	if i < 0 {
		t.Fatal("example_test.go has no ExampleDevice_Compute")
	}
	body := string(src)[i+len(head):]
	body = body[:strings.Index(body, "\n}\n")+1]
	want := "package main\n\nimport (\n\t\"fmt\"\n\t\"log\"\n\n\t\"github.com/vkdml/vkdml/dml\"\n\t\"github.com/vkdml/vkdml/tensor\"\n)\n\nfunc main() {\n" + body + "}\n"
	if block != want {
		t.Errorf("README quick start differs from ExampleDevice_Compute; want:\n%s\ngot:\n%s", want, block)
	}
}
