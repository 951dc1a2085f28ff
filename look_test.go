package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"drape/app"
	"drape/sim/meshio"
)

// colourRoughness returns the q-quantile over the vertices of tris of the
// distance between a vertex's colour and the mean colour of its one-ring
// neighbours (each neighbour once), in two norms, both over 255: l1 is the
// mean over the three channels of the absolute difference (the measure of
// issue 40, whose figures 0.25, 0.22 and 0.25 it reproduces on the frames
// of that time), l2 the RGB Euclidean distance (up to √3). Vertices
// without neighbours are skipped.
func colourRoughness(tris [][3]int32, rgb [][3]float64, q float64) (l1, l2 float64) {
	nbr := make([][]int32, len(rgb))
	for _, t := range tris {
		for k := range 3 {
			a, b := t[k], t[(k+1)%3]
			if !slices.Contains(nbr[a], b) {
				nbr[a] = append(nbr[a], b)
			}
			if !slices.Contains(nbr[b], a) {
				nbr[b] = append(nbr[b], a)
			}
		}
	}
	var d1, d2 []float64
	for i, ns := range nbr {
		if len(ns) == 0 {
			continue
		}
		var mean [3]float64
		for _, j := range ns {
			for k := range 3 {
				mean[k] += rgb[j][k] / float64(len(ns))
			}
		}
		var s1, s2 float64
		for k := range 3 {
			e := rgb[i][k] - mean[k]
			s1 += math.Abs(e)
			s2 += e * e
		}
		d1 = append(d1, s1/3/255)
		d2 = append(d2, math.Sqrt(s2)/255)
	}
	if len(d1) == 0 {
		return 0, 0
	}
	slices.Sort(d1)
	slices.Sort(d2)
	k := int(q * float64(len(d1)-1))
	return d1[k], d2[k]
}

func TestColourRoughness(t *testing.T) {
	tris := [][3]int32{{0, 1, 2}, {0, 2, 3}}
	for _, c := range []struct {
		name   string
		rgb    [][3]float64
		l1, l2 float64
	}{
		{"uniform", [][3]float64{{9, 9, 9}, {9, 9, 9}, {9, 9, 9}, {9, 9, 9}}, 0, 0},
		// Vertex 1's neighbours 0 and 2 average (255,0,0) against its
		// (0,0,0): l1 = 255/3/255, l2 = 1. Vertex 0 sees the mean of 1, 2,
		// 3 = (170,0,0) against its (255,0,0): 85/3/255 and 1/3; so do 2;
		// vertex 3 matches its neighbours. The 0.9-quantile of 4 values is
		// the third smallest.
		{"one dark", [][3]float64{{255, 0, 0}, {0, 0, 0}, {255, 0, 0}, {255, 0, 0}}, 1.0 / 9, 1.0 / 3},
	} {
		l1, l2 := colourRoughness(tris, c.rgb, 0.9)
		if math.Abs(l1-c.l1) > 1e-12 || math.Abs(l2-c.l2) > 1e-12 {
			t.Errorf("%s: got=(%v, %v), want=(%v, %v)", c.name, l1, l2, c.l1, c.l2)
		}
	}
}

// lookScenes are the frames issue 40 measures the colour roughness on:
// scene and step (Δt = 5 ms).
var lookScenes = []struct {
	scene string
	steps int
}{
	{"tablecloth", 600},        // 3 s
	{"sphere-adaptive", 800},   // 4 s
	{"curtain-adaptive", 1600}, // 8 s
}

// TestLookRoughness runs `drape run --format ply` on lookScenes and
// measures the colour roughness (colourRoughness, 90th percentile) of the
// last frame: "after" is the colours written (the display mean curvature,
// geom.DisplayCurvature), "before" the raw mean curvature of the
// curvature property coloured as drape coloured it before, over
// ±max(98th percentile of |H|, 0.5/m). The target is ≤ 0.08 in the l1
// measure (docs/look.md). It takes about a minute, so it runs only with
// DRAPE_LOOK=1; DRAPE_LOOK_OUT=DIR keeps the frames there.
func TestLookRoughness(t *testing.T) {
	if os.Getenv("DRAPE_LOOK") == "" {
		t.Skip("set DRAPE_LOOK=1 to run the scenes (about a minute)")
	}
	out := os.Getenv("DRAPE_LOOK_OUT")
	if out == "" {
		out = t.TempDir()
	}
	for _, c := range lookScenes {
		dir := filepath.Join(out, c.scene)
		n := strconv.Itoa(c.steps)
		if code, _, stderr := runCLI("run", "--scene", c.scene, "--steps", n, "--every", n, "--format", "ply", "--out", dir); code != 0 {
			t.Fatalf("%s: code=%v stderr=%q", c.scene, code, stderr)
		}
		path := filepath.Join(dir, fmt.Sprintf("frame_%06d.ply", c.steps))
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := meshio.ReadPLY(f, path)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		r, g, b, h := p.Props["red"], p.Props["green"], p.Props["blue"], p.Props["curvature"]
		if len(r) != len(p.Pos) || len(h) != len(p.Pos) {
			t.Fatalf("%s: no colour or curvature properties", path)
		}
		drawn := make([][3]float64, len(p.Pos))
		raw := make([][3]float64, len(p.Pos))
		abs := make([]float64, len(h))
		for i := range h {
			abs[i] = math.Abs(h[i])
		}
		slices.Sort(abs)
		half := math.Max(abs[int(math.Round(0.98*float64(len(abs)-1)))], 0.5)
		for i := range p.Pos {
			drawn[i] = [3]float64{r[i], g[i], b[i]}
			c := app.CurvatureColor(h[i], half)
			raw[i] = [3]float64{float64(c[0]), float64(c[1]), float64(c[2])}
		}
		b1, b2 := colourRoughness(p.Tris, raw, 0.9)
		a1, a2 := colourRoughness(p.Tris, drawn, 0.9)
		t.Logf("%-16s t = %.1f s, %5d triangles: roughness p90 before %.3f (RGB distance %.3f), after %.3f (%.3f)",
			c.scene, float64(c.steps)*0.005, len(p.Tris), b1, b2, a1, a2)
		if a1 > 0.08 {
			t.Errorf("%s: roughness got=%.3f, want ≤ 0.08", c.scene, a1)
		}
	}
}
