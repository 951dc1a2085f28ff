package fabric

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"sort"

	"drape/sim/geom"
)

// DrapePicture draws the draped specimen of a Cusick test side by side:
// on the left the top view (the shadow, as the drapemeter's lamp casts
// it, shaded by height, under the clamping disc, with red outlines of the
// disc and of the specimen laid flat), on the right the side view
// (looking along −Z, faces shaded by how squarely they face the viewer,
// drawn back to front).
// size is the height of the image in pixels; the width is twice that.
// It is pure Go: a software rasteriser, no GL.
func DrapePicture(w io.Writer, m *geom.Mesh, size int) error {
	img := image.NewRGBA(image.Rect(0, 0, 2*size, size))
	bg := color.RGBA{245, 245, 240, 255}
	for i := range img.Pix {
		img.Pix[i] = []uint8{bg.R, bg.G, bg.B, bg.A}[i%4]
	}
	half := SpecimenRadius * 1.08
	scale := float64(size) / (2 * half)
	// Top view: x right, −z up (material y up).
	toTop := func(p geom.Vec3) (float64, float64) {
		return (p.X + half) * scale, (p.Z + half) * scale
	}
	// Side view, offset by size: x right, y up; the disc at a quarter of
	// the height.
	toSide := func(p geom.Vec3) (float64, float64) {
		return float64(size) + (p.X+half)*scale, (0.25*2*half - p.Y) * scale
	}
	type face struct {
		a, b, c geom.Vec3
		depth   float64
	}
	var faces []face
	for f, t := range m.Tris {
		if !m.FaceAlive(f) {
			continue
		}
		a, b, c := m.Pos[t[0]], m.Pos[t[1]], m.Pos[t[2]]
		faces = append(faces, face{a, b, c, (a.Y + b.Y + c.Y) / 3})
	}
	// Top view: faces from the lowest up, lighter the higher, then the
	// upper clamping disc over them.
	sort.Slice(faces, func(i, j int) bool { return faces[i].depth < faces[j].depth })
	for _, f := range faces {
		t := math.Max(0, math.Min(1, 1+f.depth/(SpecimenRadius-DiscRadius)))
		col := color.RGBA{uint8(40 + 150*t), uint8(60 + 120*t), uint8(120 + 100*t), 255}
		fillTri(img, toTop, f.a, f.b, f.c, col, 0, size)
	}
	for j := 0; j < size; j++ {
		for i := 0; i < size; i++ {
			x, z := float64(i)/scale-half, float64(j)/scale-half
			if math.Hypot(x, z) <= DiscRadius {
				img.Set(i, j, color.RGBA{60, 70, 90, 255})
			}
		}
	}
	// Side view: the viewer looks along −Z, so faces of smaller Z are
	// farther and drawn first.
	sort.Slice(faces, func(i, j int) bool {
		return faces[i].a.Z+faces[i].b.Z+faces[i].c.Z < faces[j].a.Z+faces[j].b.Z+faces[j].c.Z
	})
	for _, f := range faces {
		n := f.b.Sub(f.a).Cross(f.c.Sub(f.a))
		l := math.Abs(n.Z) / math.Max(n.Norm(), 1e-30)
		col := color.RGBA{uint8(50 + 160*l), uint8(70 + 140*l), uint8(130 + 100*l), 255}
		fillTri(img, toSide, f.a, f.b, f.c, col, size, 2*size)
	}
	// Outlines: the specimen's flat circle and the disc, in the top view.
	for k := 0; k < 4*size; k++ {
		a := 2 * math.Pi * float64(k) / float64(4*size)
		for _, r := range []float64{SpecimenRadius, DiscRadius} {
			x, y := toTop(geom.Vec3{X: r * math.Cos(a), Z: r * math.Sin(a)})
			img.Set(int(x), int(y), color.RGBA{200, 60, 50, 255})
		}
	}
	return png.Encode(w, img)
}

// fillTri fills the triangle abc projected by to, clipped to columns
// [x0, x1).
func fillTri(img *image.RGBA, to func(geom.Vec3) (float64, float64), a, b, c geom.Vec3, col color.RGBA, x0, x1 int) {
	ax, ay := to(a)
	bx, by := to(b)
	cx, cy := to(c)
	d := (bx-ax)*(cy-ay) - (cx-ax)*(by-ay)
	if d == 0 {
		return
	}
	lo := func(u, v, w float64) int { return int(math.Floor(math.Min(u, math.Min(v, w)))) }
	hi := func(u, v, w float64) int { return int(math.Ceil(math.Max(u, math.Max(v, w)))) }
	h := img.Bounds().Dy()
	for j := max(0, lo(ay, by, cy)); j <= min(h-1, hi(ay, by, cy)); j++ {
		py := float64(j) + 0.5
		for i := max(x0, lo(ax, bx, cx)); i <= min(x1-1, hi(ax, bx, cx)); i++ {
			px := float64(i) + 0.5
			w1 := ((bx-px)*(cy-py) - (cx-px)*(by-py)) / d
			w2 := ((cx-px)*(ay-py) - (ax-px)*(cy-py)) / d
			if w1 >= 0 && w2 >= 0 && 1-w1-w2 >= 0 {
				img.SetRGBA(i, j, col)
			}
		}
	}
}
