package opcount

import (
	"os"
	"testing"

	"github.com/vkdml/vkdml/ops"
	"github.com/vkdml/vkdml/shaders"
)

func TestScratchOuts(t *testing.T) {
	for _, o := range []string{"0", "2", "4", "8"} {
		ctx, _ := ProfileContext(os.Getenv("PROF"))
		ctx.Tuning = ops.Tuning{"poolGrid": "true", "poolGridOuts": o}
		rows, err := Rows(ctx, Cases()[len(Cases())-4:])
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			t.Logf("outs %s %s %s %.2f", o, r.Case, r.Kernel, r.Count)
		}
	}
}

func TestScratchDis(t *testing.T) {
	ctx, _ := ProfileContext("h100")
	ctx.Tuning = ops.Tuning{"poolGrid": "true", "poolGridOuts": os.Getenv("OUTS")}
	c := Cases()[len(Cases())-4+1]
	p, err := c.Desc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k := p.Kernels[0]
	v, _ := shadersLookup(k.Variant)
	text, err := specialised(v, k.Spec)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/dis.txt", []byte(text), 0o666)
}

var shadersLookup = shaders.Lookup
