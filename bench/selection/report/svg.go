package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Series is one line of a chart.
type Series struct {
	Name string
	X, Y []float64
	// Bold draws the line thicker (this project's arm).
	Bold bool
	// Dash draws the line dashed (for lines that often coincide with another).
	Dash bool
}

// LineChart is a small, dependency-free SVG line chart. Output is a pure
// function of its fields (numbers are printed with fixed precision), so
// regenerated plots are byte-identical.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// XPercent prints x ticks as percentages.
	XPercent bool
	// YMin and YMax fix the y range when YMax > YMin.
	YMin, YMax float64
}

// palette: colour-blind-safe (Okabe-Ito and Tol muted), ours first.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#999933", "#332288", "#000000"}

const (
	chartW, chartH            = 720, 400
	padL, padR, padT, padB    = 64, 180, 40, 48
	plotW                     = chartW - padL - padR
	plotH                     = chartH - padT - padB
	legendLine, legendSpacing = 22, 18
	fontFamily                = "system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"
)

// SVG renders the chart.
func (c LineChart) SVG() []byte {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			if math.IsNaN(s.Y[i]) {
				continue
			}
			xmin, xmax = math.Min(xmin, s.X[i]), math.Max(xmax, s.X[i])
			ymin, ymax = math.Min(ymin, s.Y[i]), math.Max(ymax, s.Y[i])
		}
	}
	if c.YMax > c.YMin {
		ymin, ymax = c.YMin, c.YMax
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	yt := niceTicks(ymin, ymax, 5)
	ymin, ymax = math.Min(ymin, yt[0]), math.Max(ymax, yt[len(yt)-1])
	if ymax == ymin {
		ymax = ymin + 1
	}
	px := func(x float64) float64 { return padL + (x-xmin)/(xmax-xmin)*plotW }
	py := func(y float64) float64 { return padT + (1-(y-ymin)/(ymax-ymin))*plotH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="%s" font-size="12">`+"\n",
		chartW, chartH, chartW, chartH, fontFamily)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", padL, esc(c.Title))
	// Grid and y ticks.
	for _, t := range yt {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`+"\n", padL, y, padL+plotW, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#444">%s</text>`+"\n", padL-6, y+4, fmtTick(t))
	}
	// X ticks.
	for _, t := range niceTicks(xmin, xmax, 6) {
		if t < xmin-1e-9 || t > xmax+1e-9 {
			continue
		}
		x := px(t)
		label := fmtTick(t)
		if c.XPercent {
			label = fmtTick(t*100) + "%"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>`+"\n", x, padT+plotH, x, padT+plotH+4)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s</text>`+"\n", x, padT+plotH+18, label)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", padL, padT, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#222">%s</text>`+"\n", padL+plotW/2, chartH-8, esc(c.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%d" text-anchor="middle" fill="#222" transform="rotate(-90 16 %d)">%s</text>`+"\n", padT+plotH/2, padT+plotH/2, esc(c.YLabel))
	// Lines, ours last so it is drawn on top.
	order := make([]int, 0, len(c.Series))
	for i := len(c.Series) - 1; i >= 0; i-- {
		order = append(order, i)
	}
	for _, i := range order {
		s := c.Series[i]
		col := palette[i%len(palette)]
		width := 1.8
		if s.Bold {
			width = 3.5
		}
		dash := ""
		if s.Dash {
			dash = ` stroke-dasharray="7 4"`
		}
		var pts []string
		flush := func() {
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="%.1f"%s stroke-linejoin="round" points="%s"/>`+"\n", col, width, dash, strings.Join(pts, " "))
			}
			if len(pts) == 1 {
				fmt.Fprintf(&b, `<circle cx="%s" r="3" fill="%s"/>`+"\n", strings.Replace(pts[0], ",", `" cy="`, 1), col)
			}
			pts = pts[:0]
		}
		for k := range s.X {
			if math.IsNaN(s.Y[k]) {
				flush()
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[k]), py(s.Y[k])))
		}
		if len(s.X) <= 12 { // few points: mark them
			for k := range s.X {
				if !math.IsNaN(s.Y[k]) {
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>`+"\n", px(s.X[k]), py(s.Y[k]), width/2+1.5, col)
				}
			}
		}
		flush()
	}
	// Legend.
	lx := padL + plotW + 16
	for i, s := range c.Series {
		y := padT + 8 + i*legendSpacing
		col := palette[i%len(palette)]
		width := 2.0
		weight := "normal"
		if s.Bold {
			width, weight = 4, "bold"
		}
		dash := ""
		if s.Dash {
			dash = ` stroke-dasharray="7 4"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%.0f"%s/>`+"\n", lx, y, lx+legendLine, y, col, width, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="%s">%s</text>`+"\n", lx+legendLine+6, y+4, weight, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func esc(s string) string { return html.EscapeString(s) }

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi < lo {
		lo, hi = hi, lo
	}
	span := hi - lo
	if span == 0 {
		span = math.Max(math.Abs(lo), 1)
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	start := math.Floor(lo/step) * step
	var out []float64
	for v := start; v <= hi+step*0.5 && len(out) < 4*n; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	if len(out) == 0 {
		out = []float64{lo}
	}
	return out
}

func fmtTick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	if r := math.Round(v); math.Abs(v-r) < 1e-9 {
		return fmt.Sprintf("%.0f", r)
	}
	s := fmt.Sprintf("%.2f", v)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}
