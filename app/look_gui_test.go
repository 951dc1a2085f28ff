package app

import (
	"image"
	"math"
	"path/filepath"
	"testing"
)

// hue returns the hue of an RGB colour in degrees, [0, 360).
func hue(r, g, b float64) float64 {
	mx, mn := max(r, g, b), min(r, g, b)
	if mx == mn {
		return 0
	}
	var h float64
	switch mx {
	case r:
		h = math.Mod((g-b)/(mx-mn), 6)
	case g:
		h = (b-r)/(mx-mn) + 2
	default:
		h = (r-g)/(mx-mn) + 4
	}
	return math.Mod(60*h+360, 360)
}

// fabricPixels classifies img's pixels: cloth[y][x] is true where the
// pixel is the default fabric colour's brick red (a clearly red hue,
// saturated), and returns the pixel's brightness (mean of R, G, B in
// [0, 255]) for every pixel.
func fabricPixels(img image.Image) (cloth [][]bool, light [][]float64) {
	b := img.Bounds()
	cloth, light = make([][]bool, b.Dy()), make([][]float64, b.Dy())
	for y := range b.Dy() {
		cloth[y], light[y] = make([]bool, b.Dx()), make([]float64, b.Dx())
		for x := range b.Dx() {
			r32, g32, b32, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			r, g, bl := float64(r32>>8), float64(g32>>8), float64(b32>>8)
			light[y][x] = (r + g + bl) / 3
			h := hue(r, g, bl)
			cloth[y][x] = r > 40 && r > 1.6*g && r > 1.6*bl && (h < 25 || h > 345)
		}
	}
	return cloth, light
}

// TestGUIRecordFabric records the ground scene (a free 1 m sheet dropped
// 0.3 m onto the ground) with drape record --look fabric and looks at the
// frames as a person would:
//
//   - the first frame frames the cloth: its pixels span at least half of
//     the frame's width or height (issue 40's framing target, on a real
//     screenshot);
//   - at t = 1 s, when the sheet lies on the ground, the cloth pixels have
//     the fabric colour's hue (defaultFabricColor, the scene has no
//     cloth_color);
//   - the ground right in front of the sheet's near edge is darker than
//     the ground further in front (the contact shadow): in each column
//     under the cloth, the floor 4–8 px below its lowest cloth pixel
//     against the floor 60–80 px below.
func TestGUIRecordFabric(t *testing.T) {
	needDisplay(t)
	dir := filepath.Join(outDir(t), "fabric_ground")
	runDrape(t, nil, "record", "--scene", "ground", "--look", "fabric", "--seconds", "1.5", "--fps", "2", "--size", "640x360", "--out", dir)

	first := readPNG(t, filepath.Join(dir, "frame_000000.png"))
	cloth, _ := fabricPixels(first)
	x0, y0, x1, y1 := len(cloth[0]), len(cloth), -1, -1
	for y, row := range cloth {
		for x, c := range row {
			if c {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	fw, fh := float64(x1-x0+1)/640, float64(y1-y0+1)/360
	t.Logf("first frame: cloth spans %.0f%% of the width, %.0f%% of the height", 100*fw, 100*fh)
	if max(fw, fh) < 0.5 {
		t.Errorf("first frame: cloth spans %.0f%% of the width and %.0f%% of the height, want at least 50%% of one", 100*fw, 100*fh)
	}

	img := readPNG(t, filepath.Join(dir, "frame_000002.png"))
	cloth, light := fabricPixels(img)
	var n int
	var sr, sg, sb float64
	b := img.Bounds()
	for y := range b.Dy() {
		for x := range b.Dx() {
			if cloth[y][x] {
				r32, g32, b32, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				sr, sg, sb, n = sr+float64(r32>>8), sg+float64(g32>>8), sb+float64(b32>>8), n+1
			}
		}
	}
	if n < 20000 {
		t.Fatalf("t = 1 s: %d fabric-coloured pixels, want the sheet (at least 20000)", n)
	}
	c := defaultFabricColor
	got, want := hue(sr, sg, sb), hue(float64(c[0]), float64(c[1]), float64(c[2]))
	dh := math.Abs(math.Mod(got-want+540, 360) - 180)
	t.Logf("t = 1 s: %d cloth pixels, mean colour (%.0f, %.0f, %.0f), hue %.1f°, fabric colour's %.1f°", n, sr/float64(n), sg/float64(n), sb/float64(n), got, want)
	if dh > 10 {
		t.Errorf("cloth hue got=%.1f°, want=%.1f° ± 10°", got, want)
	}

	var near, far float64
	cols := 0
	for x := range b.Dx() {
		low := -1
		for y := range b.Dy() {
			if cloth[y][x] {
				low = y
			}
		}
		if low < 0 || low+80 >= b.Dy() {
			continue
		}
		floor := func(y0, y1 int) (float64, bool) {
			s := 0.0
			for y := y0; y <= y1; y++ {
				if cloth[y][x] {
					return 0, false
				}
				s += light[y][x]
			}
			return s / float64(y1-y0+1), true
		}
		a, ok1 := floor(low+4, low+8)
		f, ok2 := floor(low+60, low+80)
		if ok1 && ok2 {
			near, far, cols = near+a, far+f, cols+1
		}
	}
	if cols < 100 {
		t.Fatalf("only %d columns with ground in front of the sheet, want at least 100", cols)
	}
	near, far = near/float64(cols), far/float64(cols)
	t.Logf("ground in front of the sheet over %d columns: %.1f at 4–8 px, %.1f at 60–80 px (ratio %.2f)", cols, near, far, near/far)
	if near > 0.85*far {
		t.Errorf("ground next to the cloth got=%.1f, want darker than 85%% of the ground further away (%.1f): no contact shadow", near, far)
	}
}
