package dmlcom

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestPointerArgumentsConvertedInCall checks every call of call and of a
// syscall.Proc's Call in this package: an argument that takes an address
// or converts a pointer must be uintptr(unsafe.Pointer(x)) itself, the one
// form uintptrescapes moves to the heap and keeps alive. Any other form (a
// helper, a variable) leaves x on the stack, which can move before the DLL
// writes through the pointer (see call).
func TestPointerArgumentsConvertedInCall(t *testing.T) {
	files, err := filepath.Glob("*_windows.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Windows sources here (%v)", err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		checkEscapeDirective(t, f)
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || !isSyscallCall(c) {
				return true
			}
			calls++
			for _, arg := range c.Args {
				if !isUintptrOfPointer(arg) && takesPointer(arg) {
					t.Errorf("%s: argument %s: write a pointer argument as uintptr(unsafe.Pointer(x)) in the call itself", fset.Position(arg.Pos()), exprString(fset, arg))
				}
			}
			return true
		})
	}
	if calls < 20 {
		t.Errorf("found only %d calls of call and Proc.Call: the check no longer recognizes them", calls)
	}
}

// checkEscapeDirective fails unless the function call, if f declares it,
// has the //go:uintptrescapes directive.
func checkEscapeDirective(t *testing.T, f *ast.File) {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "call" || fn.Recv != nil {
			continue
		}
		if !hasDirective(fn.Doc, "//go:uintptrescapes") {
			t.Errorf("func call lacks //go:uintptrescapes")
		}
	}
}

func hasDirective(g *ast.CommentGroup, directive string) bool {
	if g == nil {
		return false
	}
	for _, c := range g.List {
		if c.Text == directive {
			return true
		}
	}
	return false
}

// isSyscallCall reports whether c calls call(...) or x.Call(...).
func isSyscallCall(c *ast.CallExpr) bool {
	switch fn := c.Fun.(type) {
	case *ast.Ident:
		return fn.Name == "call"
	case *ast.SelectorExpr:
		return fn.Sel.Name == "Call"
	}
	return false
}

// isUintptrOfPointer reports whether e is uintptr(unsafe.Pointer(x)).
func isUintptrOfPointer(e ast.Expr) bool {
	outer, ok := e.(*ast.CallExpr)
	if !ok || len(outer.Args) != 1 || !isIdent(outer.Fun, "uintptr") {
		return false
	}
	inner, ok := outer.Args[0].(*ast.CallExpr)
	return ok && len(inner.Args) == 1 && isUnsafe(inner.Fun, "Pointer")
}

// takesPointer reports whether e takes an address or calls anything but
// the conversions to uintptr and com, len and unsafe.Sizeof: a helper can
// return a converted pointer, and unsafe.Pointer(x) is a call too.
func takesPointer(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND
		case *ast.CallExpr:
			found = found || !(isIdent(n.Fun, "uintptr") || isIdent(n.Fun, "len") || isIdent(n.Fun, "com") || isUnsafe(n.Fun, "Sizeof"))
		}
		return !found
	})
	return found
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// isUnsafe reports whether e is unsafe.name.
func isUnsafe(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && isIdent(sel.X, "unsafe")
}

func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	if err := printer.Fprint(&b, fset, e); err != nil {
		return "?"
	}
	return b.String()
}
