package main

import (
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// plotResults draws GB/s against the input size in bytes for each kernel
// measured, with the copy kernel of the same run as the reference line.
func plotResults(path string, results []benchResult) error {
	if len(results) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("vkdml bench: %s on %s", results[0].Op, results[0].Device)
	p.X.Label.Text = "bytes read + written"
	p.Y.Label.Text = "GB/s (device time)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true

	byKernel := map[string]plotter.XYs{}
	var copyLine plotter.XYs
	for _, r := range results {
		byKernel[r.Op+" "+r.Kernel] = append(byKernel[r.Op+" "+r.Kernel], plotter.XY{X: float64(r.Bytes), Y: r.GBps})
		copyLine = append(copyLine, plotter.XY{X: float64(r.Bytes), Y: r.CopyGBps})
	}
	var names []string
	for n := range byKernel {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		pts := byKernel[n]
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		points.Shape = nil
		line.Color = palette(i)
		p.Add(line)
		p.Legend.Add(n, line)
	}
	sort.Slice(copyLine, func(a, b int) bool { return copyLine[a].X < copyLine[b].X })
	cl, err := plotter.NewLine(copyLine)
	if err != nil {
		return err
	}
	cl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(cl)
	p.Legend.Add("copy kernel (same run)", cl)
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}

func palette(i int) color.Color {
	colors := []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	}
	return colors[i%len(colors)]
}
