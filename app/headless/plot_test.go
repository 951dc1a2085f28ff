package headless

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestPlotPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.png")
	p := plot{series: []series{
		{x: []float64{0, 1, 2}, y: []float64{0, 5, 3}, color: colorFull},
		{x: []float64{0, 1, 2}, y: []float64{1, 1, 1}, color: colorAdaptive},
	}, xLabel: "SIMULATED TIME S", yLabel: "TRIANGLES", names: []string{"FULL", "ADAPTIVE"}}
	if err := p.writePNG(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != plotW || b.Dy() != plotH {
		t.Errorf("size got=%v, want %dx%d", b, plotW, plotH)
	}
	// The full series' polyline passes through (1, 5): some pixel in that
	// column has its colour.
	found := false
	x := marginL + (plotW-marginL-marginR)/2
	for y := 0; y < plotH; y++ {
		if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 == uint32(colorFull.R) && g>>8 == uint32(colorFull.G) && bl>>8 == uint32(colorFull.B) {
			found = true
		}
	}
	if !found {
		t.Errorf("no pixel of the full series in column %d", x)
	}
	for _, c := range []struct {
		max, want float64
	}{{0.5, 0.1}, {22140, 5000}, {7, 2}, {0, 1}} {
		if got := niceStep(c.max); got != c.want {
			t.Errorf("niceStep(%v) got=%v, want=%v", c.max, got, c.want)
		}
	}
}
