package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotResults draws GB/s against the bytes each run moves: one series per
// operator strategy, each point the median with a bar from the slowest to
// the fastest run, and the copy kernel of the same run as the ceiling. The
// y axis starts at 0, sizes are in KiB/MiB/GiB, and the legend sits right
// of the data, never on it.
func plotResults(path string, results []benchRecord) error {
	if len(results) == 0 {
		return fmt.Errorf("--plot %s: nothing was measured", path)
	}
	p := plot.New()
	r0 := results[0]
	p.Title.Text = fmt.Sprintf("vkdml bench: %s %s on %s", r0.Op, r0.DType, r0.Device)
	p.X.Label.Text = "bytes read + written per run"
	p.Y.Label.Text = "GB/s (device time; bars: slowest to fastest run)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = byteTicks{}
	p.Add(plotter.NewGrid())
	p.Title.Padding = vg.Points(8)
	legend := plot.NewLegend()
	legend.Top = true
	legend.Left = true

	series := map[string][]benchRecord{}
	var copyLine plotter.XYs
	seen := map[uint64]bool{}
	for _, r := range results {
		name := r.Op + " " + r.Kernel
		if r.KernelRequested != "" && r.KernelRequested != r.Kernel {
			name += " (asked " + r.KernelRequested + ")"
		}
		series[name] = append(series[name], r)
		if !seen[r.Bytes] {
			seen[r.Bytes] = true
			copyLine = append(copyLine, plotter.XY{X: float64(r.Bytes), Y: r.CopyGBps})
		}
	}
	names := make([]string, 0, len(series))
	for n := range series {
		names = append(names, n)
	}
	sort.Strings(names)
	yMax := 0.0
	for i, n := range names {
		rs := series[n]
		sort.Slice(rs, func(a, b int) bool { return rs[a].Bytes < rs[b].Bytes })
		pts := errorPoints{XYs: make(plotter.XYs, len(rs)), YErrors: make(plotter.YErrors, len(rs))}
		for k, r := range rs {
			pts.XYs[k] = plotter.XY{X: float64(r.Bytes), Y: r.GBps}
			pts.YErrors[k].Low, pts.YErrors[k].High = r.GBps-r.GBpsLow, r.GBpsHigh-r.GBps
			yMax = math.Max(yMax, r.GBpsHigh)
		}
		line, points, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return err
		}
		line.Color, points.Color = palette(i), palette(i)
		points.Shape, points.Radius = glyph(i), vg.Points(3.5)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		bars.Color, bars.CapWidth = palette(i), vg.Points(6)
		p.Add(line, bars, points)
		legend.Add(n, line, points)
	}
	sort.Slice(copyLine, func(a, b int) bool { return copyLine[a].X < copyLine[b].X })
	cl, err := plotter.NewLine(copyLine)
	if err != nil {
		return err
	}
	cl.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	cl.Width = vg.Points(1.5)
	cl.Color = color.Gray{Y: 0x60}
	for _, c := range copyLine {
		yMax = math.Max(yMax, c.Y)
	}
	p.Add(cl)
	legend.Add("copy kernel (ceiling)", cl)
	p.Y.Min, p.Y.Max = 0, yMax*1.08
	// Keep the first and last points off the frame (and give a single
	// size some width).
	p.X.Min, p.X.Max = copyLine[0].X/1.6, copyLine[len(copyLine)-1].X*1.6
	return savePlot(path, p, legend)
}

// savePlot draws p with the legend in a column right of it and writes the
// file (SVG or PNG by extension) through a temporary file and a rename.
func savePlot(path string, p *plot.Plot, legend plot.Legend) error {
	const width, height, legendWidth = 10 * vg.Inch, 5.5 * vg.Inch, 2.6 * vg.Inch
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, vg.Points(6), -legendWidth, vg.Points(4), -vg.Points(10)))
	legend.Draw(draw.Crop(dc, width-legendWidth+vg.Points(8), 0, 0, -vg.Points(30)))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	return writeFileAtomic(path, buf.Bytes())
}

// errorPoints are the points of a series with their spread.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// byteTicks labels a logarithmic byte axis at powers of two, in B, KiB,
// MiB or GiB, at most about eight labels.
type byteTicks struct{}

// Ticks implements plot.Ticker.
func (byteTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	a, b := int(math.Floor(math.Log2(lo))), int(math.Ceil(math.Log2(hi)))
	step := max(1, (b-a+7)/8)
	if step > 1 && step%2 == 1 { // keep labels on 1, 4, 16 ... or 1, 2, 4 ...
		step++
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		v := math.Ldexp(1, e)
		if v < lo || v > hi {
			continue
		}
		t := plot.Tick{Value: v}
		if e%step == 0 {
			t.Label = byteSize(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// byteSize formats a byte count: 512 B, 4 KiB, 1.5 MiB, 2 GiB.
func byteSize(v float64) string {
	for _, u := range []struct {
		size float64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if v >= u.size {
			return fmt.Sprintf("%g %s", math.Round(v/u.size*10)/10, u.name)
		}
	}
	return fmt.Sprintf("%g B", v)
}

func palette(i int) color.Color {
	colors := []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	}
	return colors[i%len(colors)]
}

// glyph gives each series its own marker, so that the figure reads in
// grey too.
func glyph(i int) draw.GlyphDrawer {
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}, draw.RingGlyph{}, draw.CrossGlyph{}}
	return glyphs[i%len(glyphs)]
}
