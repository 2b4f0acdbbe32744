package profiles_test

import "github.com/vkdml/vkdml/ops"

func opsOperator(d ops.Desc) ([]string, bool) {
	o, ok := ops.OperatorOf(d)
	if !ok {
		return nil, false
	}
	return o.Strategies, true
}

func opsRegistry() []string {
	var out []string
	for _, o := range ops.Registry {
		out = append(out, o.Type)
	}
	return out
}

func checkAndFacts(ctx *ops.Context, d ops.Desc, p *ops.Plan) error {
	if err := ops.CheckPlan(ctx, d, p); err != nil {
		return err
	}
	_, err := ops.Facts(ctx, p)
	return err
}
