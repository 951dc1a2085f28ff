package headless

import (
	"fmt"
	"math"

	"drape/sim/adapt"
	"drape/sim/geom"
	"drape/sim/scene"
)

// The full-resolution reference and the accuracy measure of "drape
// bench" (Bender & Deul §7), which the viewer's side by side
// (app/sidebyside.go) shows live.

// FullResolution returns the full-resolution run of sc: a copy whose base
// mesh scene.Build refines uniformly to generation g by the √3 scheme
// (adapt.fine_start, cloth.Sim.RefineUniform) and whose adaptivity is
// off. sc needs an "adapt" section, and g must be even and in the
// adapter's range; otherwise it returns an error naming the scene.
func FullResolution(sc *scene.Scene, g int) (*scene.Scene, error) {
	if sc.Adapt == nil {
		return nil, fmt.Errorf("scene %s has no \"adapt\" section: it has no full-resolution run", sc.Name)
	}
	if !adapt.UniformGeneration(g) {
		return nil, fmt.Errorf("scene %s: a uniformly refined mesh needs an even generation, got %d", sc.Name, g)
	}
	full := sc.Clone()
	full.Adapt.Enabled, full.Adapt.FineStart, full.Adapt.GMax = false, true, g
	return full, nil
}

// SurfaceDistance sums up the accuracy measure: the distance of every
// vertex of a reference run (the full-resolution one) to another run's
// surface (geom.SurfaceGrid: the exact distance to its nearest triangle,
// not to its nearest vertex), over any number of times, as the RMS and
// the largest distance relative to the cloth's rest diagonal. The zero
// value holds no distance.
type SurfaceDistance struct {
	sumSq, worst float64
	n            int
}

// Add adds the distances of the points ref (the reference run's live
// vertices at one time) to the surface g (the other run's at the same
// time).
func (d *SurfaceDistance) Add(g *geom.SurfaceGrid, ref []geom.Vec3) {
	for _, p := range ref {
		dist := g.Distance(p)
		d.sumSq += dist * dist
		d.worst = math.Max(d.worst, dist)
		d.n++
	}
}

// Count returns how many distances were added.
func (d *SurfaceDistance) Count() int { return d.n }

// Relative returns the RMS and the largest of the distances added, each
// divided by the cloth's diagonal diag, m; zeros when none was added or
// diag is not positive.
func (d *SurfaceDistance) Relative(diag float64) (rms, worst float64) {
	if d.n == 0 || !(diag > 0) {
		return 0, 0
	}
	return math.Sqrt(d.sumSq/float64(d.n)) / diag, d.worst / diag
}
