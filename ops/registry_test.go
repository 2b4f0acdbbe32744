package ops_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vkdml/vkdml/internal/schema"
	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/tensor"
)

// TestRegistryRows: every row has a unique type, a schema entry and a
// constructor of a desc of that type, and every schema entry is a row.
func TestRegistryRows(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range ops.Registry {
		if seen[o.Type] {
			t.Errorf("%s is registered twice", o.Type)
		}
		seen[o.Type] = true
		if _, ok := schema.Lookup(o.Type); !ok {
			t.Errorf("%s has no entry in internal/schema", o.Type)
			continue
		}
		d := o.New()
		if d == nil || d.OperatorType() != o.Type {
			t.Errorf("%s: New() = %#v", o.Type, d)
			continue
		}
		if got, ok := ops.OperatorOf(d); !ok || got != o {
			t.Errorf("%s: OperatorOf(New()) = %v, %v", o.Type, got, ok)
		}
		if got, ok := ops.LookupOperator(o.Type); !ok || got != o {
			t.Errorf("LookupOperator(%s) = %v, %v", o.Type, got, ok)
		}
		if len(o.Strategies) == 0 {
			t.Errorf("%s: no strategies (an operator with one kernel names it)", o.Type)
		}
	}
	for _, d := range schema.Descs {
		if !seen[d.Type] {
			t.Errorf("internal/schema describes %s, which ops does not register", d.Type)
		}
	}
}

// TestRegistryStructsMatchSchema: each desc's Go struct has exactly its
// schema's fields (count fields aside), with the types the schema implies.
func TestRegistryStructsMatchSchema(t *testing.T) {
	for _, o := range ops.Registry {
		if err := matchSchema(o); err != "" {
			t.Errorf("%s: %s", o.Type, err)
		}
	}
}

func matchSchema(o *ops.Operator) string {
	s := o.Schema()
	st := reflect.TypeOf(o.New()).Elem()
	if st.Name() != s.Go {
		return "the Go type is " + st.Name() + ", the schema says " + s.Go
	}
	want := map[string]*schema.Field{}
	for i := range s.Fields {
		if f := &s.Fields[i]; !s.IsCount(f.Name) {
			want[f.Go()] = f
		}
	}
	var errs []string
	for i := range st.NumField() {
		sf := st.Field(i)
		f, ok := want[sf.Name]
		if !ok {
			errs = append(errs, "field "+sf.Name+" is not in the schema (an unexported one would also escape dml's cache key)")
			continue
		}
		delete(want, sf.Name)
		if wt := goType(f); sf.Type != wt && !(f.Enum != nil && sf.Type.Name() == f.Enum.Go() && sf.Type.Kind() == reflect.Uint32) {
			errs = append(errs, "field "+sf.Name+" is "+sf.Type.String()+", the schema implies "+wt.String())
		}
	}
	for name := range want {
		errs = append(errs, "the schema's "+want[name].Name+" has no Go field "+name)
	}
	sort.Strings(errs)
	return strings.Join(errs, "; ")
}

// goType is the Go type a schema field implies (an enum's: uint32).
func goType(f *schema.Field) reflect.Type {
	switch {
	case f.Type == schema.TensorDesc && f.Optional:
		return reflect.TypeOf((*tensor.Desc)(nil))
	case f.Type == schema.TensorDesc:
		return reflect.TypeOf(tensor.Desc{})
	case f.Type == schema.UIntArray:
		return reflect.TypeOf([]uint32(nil))
	}
	return reflect.TypeOf(uint32(0))
}

// filled returns o's desc with every schema field set: tensors (optional
// ones too, unless noOptional), arrays and numbers.
func filled(o *ops.Operator, noOptional bool) ops.Desc {
	d := o.New()
	v := reflect.ValueOf(d).Elem()
	s := o.Schema()
	for i, f := range s.Fields {
		if s.IsCount(f.Name) {
			continue
		}
		fv := v.FieldByName(f.Go())
		switch f.Type {
		case schema.TensorDesc:
			td := tensor.NewDesc(tensor.Float32, []uint32{2, uint32(3 + i)})
			if f.Optional && !noOptional {
				fv.Set(reflect.ValueOf(&td))
			} else if !f.Optional {
				fv.Set(reflect.ValueOf(td))
			}
		case schema.UIntArray:
			fv.Set(reflect.ValueOf([]uint32{1, uint32(i)}))
		case schema.UInt:
			fv.SetUint(1)
		}
	}
	return d
}

// TestRegistryJSONRoundTrip: a desc of every type survives JSON, which
// dml's compute cache keys descs by.
func TestRegistryJSONRoundTrip(t *testing.T) {
	for _, o := range ops.Registry {
		for _, d := range []ops.Desc{o.New(), filled(o, false), filled(o, true)} {
			b, err := json.Marshal(d)
			if err != nil {
				t.Errorf("%s: %v", o.Type, err)
				continue
			}
			back := o.New()
			if err := json.Unmarshal(b, back); err != nil {
				t.Errorf("%s: %v", o.Type, err)
				continue
			}
			if !reflect.DeepEqual(back, d) {
				t.Errorf("%s: %s came back as %+v", o.Type, b, back)
			}
		}
	}
}

// TestRegistryInputsOutputs: the schema's tensors are the desc's Inputs
// and Outputs, in order, an absent optional one as nil.
func TestRegistryInputsOutputs(t *testing.T) {
	for _, o := range ops.Registry {
		for _, noOptional := range []bool{false, true} {
			d := filled(o, noOptional)
			v := reflect.ValueOf(d).Elem()
			check := func(what string, fields []schema.Field, got []*tensor.Desc) {
				if len(got) != len(fields) {
					t.Errorf("%s: %d %s, the schema has %d", o.Type, len(got), what, len(fields))
					return
				}
				for i, f := range fields {
					fv := v.FieldByName(f.Go())
					var want *tensor.Desc
					if f.Optional {
						want = fv.Interface().(*tensor.Desc)
					} else {
						want = fv.Addr().Interface().(*tensor.Desc)
					}
					if got[i] != want {
						t.Errorf("%s: %s[%d] is not the field %s", o.Type, what, i, f.Go())
					}
				}
			}
			check("Inputs", o.Inputs(), d.Inputs())
			check("Outputs", o.Outputs(), d.Outputs())
		}
	}
}

// TestMaxPoolBindingOrder: MAX_POOLING1/2 outputs are [Output, Indices],
// nil when the indices are absent.
func TestMaxPoolBindingOrder(t *testing.T) {
	m := goodPool2()
	if outs := m.Outputs(); len(outs) != 2 || outs[0] != &m.Output || outs[1] != m.OutputIndices {
		t.Errorf("MAX_POOLING2 outputs %v", outs)
	}
	m1 := &ops.MaxPooling1{}
	if outs := m1.Outputs(); len(outs) != 2 || outs[1] != nil {
		t.Errorf("MAX_POOLING1 without indices: outputs %v", outs)
	}
	if outs := (&ops.MaxPooling{}).Outputs(); len(outs) != 1 {
		t.Errorf("MAX_POOLING outputs %v", outs)
	}
}

// TestEveryDescTypeRegistered: every type in package ops with an
// OperatorType method is in the registry.
func TestEveryDescTypeRegistered(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var defined []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		defined = append(defined, descTypes(f)...)
	}
	var registered []string
	for _, o := range ops.Registry {
		registered = append(registered, reflect.TypeOf(o.New()).Elem().Name())
	}
	slices.Sort(defined)
	slices.Sort(registered)
	if len(defined) == 0 || !slices.Equal(defined, registered) {
		t.Errorf("ops defines the descs %v; the registry has %v", defined, registered)
	}
}

// descTypes are the receivers of the OperatorType methods declared in f.
func descTypes(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Name.Name != "OperatorType" || len(fn.Recv.List) != 1 {
			continue
		}
		typ := fn.Recv.List[0].Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
			names = append(names, id.Name)
		}
	}
	return names
}

// TestFuzzKindsPinned: the committed fuzz seeds chose these kinds by
// number, so the numbers never change; a new desc appends one.
func TestFuzzKindsPinned(t *testing.T) {
	pinned := []string{"ARGMAX", "ARGMIN", "REDUCE", "MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"}
	kinds := ops.FuzzKinds()
	if len(kinds) < len(pinned) {
		t.Fatalf("%d fuzz kinds; the committed seeds use %d", len(kinds), len(pinned))
	}
	for k, o := range kinds {
		switch {
		case o == nil:
			t.Errorf("no desc has fuzz kind %d (kinds are numbered without gaps)", k)
		case k < len(pinned) && o.Type != pinned[k]:
			t.Errorf("fuzz kind %d is %s; the committed seeds mean %s", k, o.Type, pinned[k])
		}
	}
	n, numbered := 0, 0
	for _, o := range ops.Registry {
		if o.FuzzKind != ops.NotFuzzed {
			n++
		}
	}
	for _, o := range kinds {
		if o != nil {
			numbered++
		}
	}
	if n != numbered {
		t.Errorf("%d descs have a fuzz kind but only %d kind numbers are taken: two descs share one", n, numbered)
	}
}
