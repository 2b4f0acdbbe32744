package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/hresult"
	"github.com/vkdml/vkdml/internal/panicerr"
)

// TestExportsRecover: every function exported to C runs its body through
// export, whose deferred finish recovers a panic; a new export written
// without it would let a panic kill the host process.
func TestExportsRecover(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !hasExportDirective(fn.Doc) {
				continue
			}
			n++
			// Either `return export(...)`, or, for a function that returns
			// no HRESULT, `export(...)` then a return of what its body set.
			var call *ast.CallExpr
			switch st := fn.Body.List[0].(type) {
			case *ast.ReturnStmt:
				if len(fn.Body.List) == 1 && len(st.Results) == 1 {
					call, _ = st.Results[0].(*ast.CallExpr)
				}
			case *ast.ExprStmt:
				if _, ret := fn.Body.List[len(fn.Body.List)-1].(*ast.ReturnStmt); len(fn.Body.List) == 2 && ret {
					call, _ = st.X.(*ast.CallExpr)
				}
			}
			if call == nil || !isIdent(call.Fun, "export") {
				t.Errorf("%s: %s does not run its body in export(...), which recovers panics", f, fn.Name.Name)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d exported functions; the test no longer finds them", n)
	}
}

func hasExportDirective(doc *ast.CommentGroup) bool {
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, "//export ") {
			return true
		}
	}
	return false
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// TestPanicAtTheBoundary: the message a caller reads for a panic in an
// export's body (the net for any bug the layers below did not turn into
// an error themselves; TestExportTurnsPanicIntoEUnexpected checks the
// HRESULT) is one line naming the call and the panic's value, with no Go
// stack.
func TestPanicAtTheBoundary(t *testing.T) {
	// What finish makes of a recovered value, message included (the
	// thread's message itself lives on the C side).
	var err error = panicerr.Error("vkdml_operator_create", "planner bug\ngoroutine 7 [running]:\n\tmain.go:1")
	code, msg := outcome("vkdml_operator_create", err)
	if code != hresult.E_UNEXPECTED || !errors.Is(err, hresult.E_UNEXPECTED) {
		t.Errorf("code %v, want E_UNEXPECTED", code)
	}
	want := "vkdml_operator_create: internal error (a bug in vkdml; please report it, with VKDML_TRACEBACK=1's stack): planner bug goroutine 7 [running]: main.go:1 [E_UNEXPECTED]"
	if msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
}
