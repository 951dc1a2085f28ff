package headless

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// "drape compare": the four-way comparison of Mujahid et al. (Table 1,
// figs. 5–8). A scene with an "adapt" section runs four ways in one
// process, taking turns of benchBlock steps as "drape bench" does:
//
//   - coarse: the base mesh, adaptivity off;
//   - fine: the base mesh refined uniformly to g_max, adaptivity off, the
//     reference;
//   - refining: adaptive from the base mesh (fine_start false);
//   - coarsening: adaptive from the fine mesh (fine_start true, with the
//     scene's fine_hold or --hold).
//
// Every Sample seconds of simulated time each run is compared with the
// fine run at the same step: the shape error is the distance of the fine
// run's vertices to the run's surface (RMS over the vertices at one time)
// relative to the cloth's rest diagonal, as in "drape bench"; the force
// error is |ΣR − ΣR_fine|, the difference of the total pin reaction forces
// (Sim.PinReactions), relative to the cloth's weight m·|g|. Both are then
// summarised over time by their RMS and maximum.

// CompareOptions are the flags of "drape compare".
type CompareOptions struct {
	Scene   string  // built-in scene name or scene file; must have an "adapt" section with an even g_max
	Seconds float64 // simulated time per run, s; 0 means the scene's duration
	Sample  float64 // interval between error samples, s, > 0
	// Hold overrides the coarsening run's fine_hold, s; negative keeps
	// the scene's value.
	Hold     float64
	JSON     string // result file, "" for none
	Plot     string // PNG directory, "" for none
	Progress Progress
	Now      func() time.Time // clock; nil means time.Now
}

// CompareRun is one run's figures; the series feed the plots.
type CompareRun struct {
	Name            string  `json:"name"`    // coarse, fine, refining or coarsening
	Steps           int     `json:"steps"`   // steps completed
	TotalS          float64 `json:"total_s"` // Σ wall time of the steps, s (mesh building not included)
	MsPerStepMean   float64 `json:"ms_per_step_mean"`
	MsPerStepMedian float64 `json:"ms_per_step_median"`
	VertsMin        int     `json:"vertices_min"` // live vertices after each step
	VertsMax        int     `json:"vertices_max"`
	VertsMean       float64 `json:"vertices_mean"`
	// Shape error: per sample, the RMS distance of the fine run's vertices
	// to this run's surface ÷ the cloth's rest diagonal; over the samples
	// its RMS and its largest value.
	ShapeRMS float64 `json:"shape_error_rms"`
	ShapeMax float64 `json:"shape_error_max"`
	// Force error: per sample, |ΣR − ΣR_fine| ÷ the cloth's weight, with
	// ΣR the total pin reaction force; over the samples its RMS and its
	// largest value.
	ForceRMS float64 `json:"force_error_rms"`
	ForceMax float64 `json:"force_error_max"`
	Finite   bool    `json:"finite"` // false if the run blew up
	Error    string  `json:"error,omitempty"`

	times          []float64 // s, after each step
	verts          []int     // after each step
	sampleT        []float64 // s, at each error sample
	shape, force   []float64 // the errors at each sample
	sumSqS, sumSqF float64
}

// Mujahid is a row of Mujahid et al.'s Table 1 (cloth over a box, one
// corner held; a quasi-static mass-spring minimisation): time, s; the
// particle count (start–end for the adaptive runs); the quality error,
// their cost function relative to the fine mesh's.
type Mujahid struct {
	TimeS     float64 `json:"time_s"`
	Particles string  `json:"particles"`
	Quality   float64 `json:"quality_error"`
}

// MujahidTable1 holds Table 1 of Mujahid et al. in the order of
// CompareResult.Runs: coarse, fine, refining, coarsening.
var MujahidTable1 = [4]Mujahid{
	{180, "400", 0.1468},
	{3200, "5939", 0},
	{1855, "400–4689", 0.0625},
	{700, "5939–1600", 0.035},
}

// CompareResult is what --json writes.
type CompareResult struct {
	Scene    string        `json:"scene"`
	Seconds  float64       `json:"seconds"` // simulated per run
	GMax     int           `json:"g_max"`
	Hold     float64       `json:"fine_hold"`      // the coarsening run's hold, s
	Diagonal float64       `json:"cloth_diagonal"` // m, at rest
	Weight   float64       `json:"cloth_weight"`   // N, m·|g|
	Samples  int           `json:"samples"`        // times at which all runs were compared
	Runs     [4]CompareRun `json:"runs"`           // coarse, fine, refining, coarsening
	Mujahid  [4]Mujahid    `json:"mujahid_table1"` // their Table 1, same order
}

// Compare implements "drape compare".
func Compare(o CompareOptions) (CompareResult, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if !(o.Sample > 0) || math.IsInf(o.Sample, 0) {
		return CompareResult{}, fmt.Errorf("sample interval must be positive and finite, got %v", o.Sample)
	}
	sc, err := scene.LoadScene(assets.Scenes, o.Scene)
	if err != nil {
		return CompareResult{}, err
	}
	steps, every, err := adaptiveRuns(sc, o.Seconds, o.Sample, "drape-box")
	if err != nil {
		return CompareResult{}, err
	}
	dt := sc.Params.Dt
	hold := sc.Adapt.FineHold
	if o.Hold >= 0 {
		hold = o.Hold
	}
	res := CompareResult{Scene: sc.Name, Seconds: float64(steps) * dt, GMax: sc.Adapt.GMax, Hold: hold, Mujahid: MujahidTable1}

	// The four runs differ only in adapt.enabled and adapt.fine_start.
	names := [4]string{"coarse", "fine", "refining", "coarsening"}
	sides := make([]*benchSide, 4)
	for k, v := range []struct{ enabled, fine bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		a := *sc.Adapt
		a.Enabled, a.FineStart, a.FineHold = v.enabled, v.fine, hold
		c := *sc
		c.Adapt = &a
		s, err := c.Build()
		if err != nil {
			return res, fmt.Errorf("%s run: %w", names[k], err)
		}
		sides[k] = &benchSide{s: s, now: o.Now}
		res.Runs[k].Name = names[k]
	}
	fine := sides[1].s
	lo, hi := restBounds(sides[0].s.Mesh)
	res.Diagonal = hi.Sub(lo).Norm()
	res.Weight = fine.TotalMass() * fine.Params().Gravity.Norm()
	if !(res.Diagonal > 0) || !(res.Weight > 0) {
		return res, fmt.Errorf("scene %s: the cloth needs a positive size and weight to scale the errors (diagonal %g m, weight %g N)", sc.Name, res.Diagonal, res.Weight)
	}
	if o.Progress != nil {
		o.Progress.Update(0, 4*steps)
	}
	// Per block: the fine run first, keeping its vertices and total pin
	// force at the block's sample steps; then the others, each compared
	// right after it reaches a sample step. The fine run is compared with
	// itself through the same code, which gives zero errors only if that
	// code is right.
	var refs []compareRef
	for first := 1; first <= steps; first += benchBlock {
		last := min(first+benchBlock-1, steps)
		refs = refs[:0]
		for i := first; i <= last && sides[1].step(); i++ {
			res.Runs[1].record(fine)
			if i%every == 0 {
				refs = append(refs, compareRef{i, livePositions(fine.Mesh), totalPinForce(fine)})
				res.Runs[1].compare(fine, refs[len(refs)-1], res.Diagonal, res.Weight)
				res.Samples++
			}
		}
		for k, b := range sides {
			if k == 1 {
				continue
			}
			j := 0
			for i := first; i <= last && b.step(); i++ {
				res.Runs[k].record(b.s)
				if j < len(refs) && refs[j].step == i {
					res.Runs[k].compare(b.s, refs[j], res.Diagonal, res.Weight)
					j++
				}
			}
		}
		if o.Progress != nil {
			n := 0
			for _, b := range sides {
				n += len(b.rec.wall)
			}
			o.Progress.Update(n, 4*steps)
		}
	}
	if o.Progress != nil {
		o.Progress.Done()
	}
	var errs []error
	for k, b := range sides {
		res.Runs[k].finish(b)
		if res.Runs[k].Error != "" {
			errs = append(errs, fmt.Errorf("%s run: %s", names[k], res.Runs[k].Error))
		}
	}
	return res, errors.Join(errs...)
}

// record appends the run's state after a step.
func (r *CompareRun) record(s *cloth.Sim) {
	r.times = append(r.times, s.Time)
	r.verts = append(r.verts, s.Mesh.NumVerts())
}

// compareRef is the fine run's state at one sample step.
type compareRef struct {
	step  int
	pos   []geom.Vec3 // live vertices
	force geom.Vec3   // ΣR, N
}

// compare appends the errors of s against the fine run's state f at the
// same step: the RMS distance of f's vertices to s's surface ÷ diag and
// |ΣR_s − ΣR_f| ÷ weight.
func (r *CompareRun) compare(s *cloth.Sim, f compareRef, diag, weight float64) {
	var dist SurfaceDistance
	dist.Add(geom.NewSurfaceGrid(s.Mesh), f.pos)
	shape, _ := dist.Relative(diag)
	force := totalPinForce(s).Sub(f.force).Norm() / weight
	r.sampleT = append(r.sampleT, s.Time)
	r.shape = append(r.shape, shape)
	r.force = append(r.force, force)
	r.sumSqS += shape * shape
	r.sumSqF += force * force
}

// totalPinForce returns ΣR over the pins (Sim.PinReactions), N.
func totalPinForce(s *cloth.Sim) geom.Vec3 {
	var f geom.Vec3
	for _, r := range s.PinReactions() {
		f = f.Add(r)
	}
	return f
}

// finish fills the summary fields from the series and the stepping record.
func (r *CompareRun) finish(b *benchSide) {
	r.Steps = len(b.rec.wall)
	r.MsPerStepMean, r.MsPerStepMedian, _ = b.rec.summary()
	for _, w := range b.rec.wall {
		r.TotalS += w.Seconds()
	}
	if len(r.verts) > 0 {
		r.VertsMin, r.VertsMax = r.verts[0], r.verts[0]
		var sum float64
		for _, v := range r.verts {
			r.VertsMin, r.VertsMax = min(r.VertsMin, v), max(r.VertsMax, v)
			sum += float64(v)
		}
		r.VertsMean = sum / float64(len(r.verts))
	}
	if n := len(r.shape); n > 0 {
		r.ShapeRMS = math.Sqrt(r.sumSqS / float64(n))
		r.ForceRMS = math.Sqrt(r.sumSqF / float64(n))
		for i := range r.shape {
			r.ShapeMax = math.Max(r.ShapeMax, r.shape[i])
			r.ForceMax = math.Max(r.ForceMax, r.force[i])
		}
	}
	r.Finite = b.s.Finite() && !errors.Is(b.err, cloth.ErrUnstable)
	if b.err != nil {
		r.Error = b.err.Error()
	}
}

var compareColors = [4]color.RGBA{{120, 120, 120, 255}, colorFull, {40, 160, 70, 255}, colorAdaptive}

// WriteCompareTable prints the comparison as a markdown table, Mujahid et
// al.'s Table 1 in the last three columns.
func WriteCompareTable(w io.Writer, r CompareResult) {
	fmt.Fprintf(w, "%s, %.3g s simulated per run, g_max = %d, fine_hold %.3g s for the coarsening run; errors against the fine run at %d times, shape relative to the %.3g m cloth diagonal, force relative to the %.3g N cloth weight\n\n",
		r.Scene, r.Seconds, r.GMax, r.Hold, r.Samples, r.Diagonal, r.Weight)
	fmt.Fprintln(w, "| run | total s | ms/step mean | ms/step median | vertices min–max | vertices mean | shape error RMS | shape error max | force error RMS | force error max | finite | Mujahid time s | Mujahid particles | Mujahid quality error |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|")
	for k, x := range r.Runs {
		m := r.Mujahid[k]
		fmt.Fprintf(w, "| %s | %.1f | %.2f | %.2f | %d–%d | %.0f | %.3g | %.3g | %.3g | %.3g | %v | %.0f | %s | %+.4g |\n",
			x.Name, x.TotalS, x.MsPerStepMean, x.MsPerStepMedian, x.VertsMin, x.VertsMax, x.VertsMean,
			x.ShapeRMS, x.ShapeMax, x.ForceRMS, x.ForceMax, x.Finite, m.TimeS, m.Particles, m.Quality)
	}
}

// WriteComparePlots writes vertices.png, shape_error.png and
// force_error.png into dir, one line per run (coarse grey, fine blue,
// refining green, coarsening red).
func WriteComparePlots(dir string, r CompareResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating plot directory: %w", err)
	}
	names := []string{"COARSE", "FINE", "REFINING", "COARSENING"}
	plots := []struct {
		file, yLabel string
		x, y         func(c *CompareRun) []float64
	}{
		{"vertices.png", "VERTICES", func(c *CompareRun) []float64 { return c.times }, func(c *CompareRun) []float64 {
			out := make([]float64, len(c.verts))
			for i, v := range c.verts {
				out[i] = float64(v)
			}
			return out
		}},
		{"shape_error.png", "SHAPE ERROR / DIAGONAL", func(c *CompareRun) []float64 { return c.sampleT }, func(c *CompareRun) []float64 { return c.shape }},
		{"force_error.png", "FORCE ERROR / WEIGHT", func(c *CompareRun) []float64 { return c.sampleT }, func(c *CompareRun) []float64 { return c.force }},
	}
	for _, p := range plots {
		pl := plot{xLabel: "SIMULATED TIME S", yLabel: p.yLabel, names: names}
		for k := range r.Runs {
			pl.series = append(pl.series, series{x: p.x(&r.Runs[k]), y: p.y(&r.Runs[k]), color: compareColors[k]})
		}
		if err := pl.writePNG(filepath.Join(dir, p.file)); err != nil {
			return err
		}
	}
	return nil
}
