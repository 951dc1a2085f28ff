package headless

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strconv"
)

// A tiny line plotter on the standard library (image/png) for
// "drape bench --plot": axes from zero, grid lines at round tick values
// labelled with a built-in 3×5 pixel digit font, one polyline per series.
// Full resolution is drawn in blue, adaptive in red.

var (
	colorFull     = color.RGBA{40, 90, 200, 255}
	colorAdaptive = color.RGBA{210, 50, 40, 255}
	colorAxis     = color.RGBA{0, 0, 0, 255}
	colorGrid     = color.RGBA{225, 225, 225, 255}
)

type series struct {
	x, y  []float64
	color color.RGBA
}

type plot struct {
	series         []series
	xLabel, yLabel string   // axis titles, in the glyphs' alphabet
	names          []string // legend entry per series
}

const (
	plotW, plotH = 900, 420
	marginL      = 70
	marginR      = 20
	marginT      = 20
	marginB      = 40
)

// writePNG draws the plot into a PNG file.
func (p *plot) writePNG(path string) error {
	img := image.NewRGBA(image.Rect(0, 0, plotW, plotH))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	var xmax, ymax float64
	for _, s := range p.series {
		for i := range s.x {
			if !math.IsNaN(s.y[i]) && !math.IsInf(s.y[i], 0) {
				xmax, ymax = math.Max(xmax, s.x[i]), math.Max(ymax, s.y[i])
			}
		}
	}
	xstep, ystep := niceStep(xmax), niceStep(ymax)
	xmax = math.Max(xstep, math.Ceil(xmax/xstep-1e-9)*xstep)
	ymax = math.Max(ystep, math.Ceil(ymax/ystep-1e-9)*ystep)
	w, h := plotW-marginL-marginR, plotH-marginT-marginB
	px := func(x float64) int { return marginL + int(math.Round(x/xmax*float64(w))) }
	py := func(y float64) int { return marginT + h - int(math.Round(y/ymax*float64(h))) }
	for x := 0.0; x <= xmax*(1+1e-9); x += xstep {
		line(img, px(x), py(0), px(x), py(ymax), colorGrid)
		drawText(img, label(x, xstep), px(x)-len(label(x, xstep))*4, py(0)+8, colorAxis)
	}
	for y := 0.0; y <= ymax*(1+1e-9); y += ystep {
		line(img, px(0), py(y), px(xmax), py(y), colorGrid)
		drawText(img, label(y, ystep), px(0)-8-len(label(y, ystep))*8, py(y)-5, colorAxis)
	}
	line(img, px(0), py(0), px(xmax), py(0), colorAxis)
	line(img, px(0), py(0), px(0), py(ymax), colorAxis)
	for _, s := range p.series {
		for i := 1; i < len(s.x); i++ {
			if finite(s.y[i-1]) && finite(s.y[i]) {
				line(img, px(s.x[i-1]), py(s.y[i-1]), px(s.x[i]), py(s.y[i]), s.color)
			}
		}
	}
	// Legend: a colour swatch and a name per series, top right.
	for k, s := range p.series {
		x0, y0 := plotW-marginR-110, marginT+6+16*k
		for dy := 0; dy < 10; dy++ {
			line(img, x0, y0+dy, x0+20, y0+dy, s.color)
		}
		if k < len(p.names) {
			drawText(img, p.names[k], x0+26, y0, colorAxis)
		}
	}
	drawText(img, p.xLabel, marginL+w/2-4*len(p.xLabel), plotH-14, colorAxis)
	drawText(img, p.yLabel, marginL+6, 4, colorAxis)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing plot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("writing plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing plot %s: %w", path, err)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// niceStep returns a tick spacing of 1, 2 or 5 times a power of ten that
// cuts [0, max] into about 5 intervals; 1 for a non-positive max.
func niceStep(max float64) float64 {
	if !(max > 0) || math.IsInf(max, 0) {
		return 1
	}
	raw := max / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func label(v, step float64) string {
	prec := 0
	if step < 1 {
		prec = int(math.Ceil(-math.Log10(step)))
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// line draws a segment by Bresenham's algorithm.
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// glyphs is a 3×5 pixel font for digits, '.', '-', ' ', '/' and the
// capitals the labels use: five rows of three bits, most significant bit
// on the left.
var glyphs = map[rune][5]uint8{
	'0': {7, 5, 5, 5, 7}, '1': {2, 6, 2, 2, 7}, '2': {7, 1, 7, 4, 7}, '3': {7, 1, 7, 1, 7},
	'4': {5, 5, 7, 1, 1}, '5': {7, 4, 7, 1, 7}, '6': {7, 4, 7, 5, 7}, '7': {7, 1, 1, 1, 1},
	'8': {7, 5, 7, 5, 7}, '9': {7, 5, 7, 1, 7}, '.': {0, 0, 0, 0, 2}, '-': {0, 0, 7, 0, 0},
	' ': {}, '/': {1, 1, 2, 4, 4}, '(': {2, 4, 4, 4, 2}, ')': {2, 1, 1, 1, 2},
	'A': {2, 5, 7, 5, 5}, 'D': {6, 5, 5, 5, 6}, 'E': {7, 4, 6, 4, 7}, 'F': {7, 4, 6, 4, 4},
	'G': {7, 4, 5, 5, 7}, 'I': {7, 2, 2, 2, 7}, 'L': {4, 4, 4, 4, 7}, 'M': {5, 7, 7, 5, 5},
	'N': {6, 5, 5, 5, 5}, 'P': {6, 5, 6, 4, 4}, 'R': {6, 5, 6, 5, 5}, 'S': {7, 4, 7, 1, 7},
	'T': {7, 2, 2, 2, 2}, 'U': {5, 5, 5, 5, 7}, 'V': {5, 5, 5, 5, 2},
	'C': {7, 4, 4, 4, 7}, 'H': {5, 5, 7, 5, 5}, 'O': {7, 5, 5, 5, 7}, 'W': {5, 5, 7, 7, 5},
	'K': {5, 5, 6, 5, 5},
}

// drawText draws s at (x, y) (top left) with 2× scaled glyphs, 8 px apart.
func drawText(img *image.RGBA, s string, x, y int, c color.RGBA) {
	for i, r := range s {
		g := glyphs[r]
		for row := 0; row < 5; row++ {
			for col := 0; col < 3; col++ {
				if g[row]&(4>>col) != 0 {
					for d := 0; d < 4; d++ {
						img.SetRGBA(x+8*i+2*col+d%2, y+2*row+d/2, c)
					}
				}
			}
		}
	}
}
