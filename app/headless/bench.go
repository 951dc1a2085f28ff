package headless

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"drape/assets"
	"drape/sim/adapt"
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// "drape bench": the comparison of Bender & Deul §7. A scene with an
// "adapt" section runs twice in one process, at full resolution (its base
// mesh uniformly refined to g_max with the same √3 scheme, adaptivity off)
// and adaptively, the two taking turns of benchBlock steps, and the two
// are compared step by step.

// BenchOptions are the flags of "drape bench".
type BenchOptions struct {
	Scene   string  // built-in scene name or scene file; must have an "adapt" section
	Seconds float64 // simulated time per run, s; 0 means the scene's duration
	Sample  float64 // interval between accuracy samples, s
	JSON    string  // result file, "" for none
	Plot    string  // PNG directory, "" for none
	// Perturb, when not 0, seeds a nudge of every live vertex of both runs'
	// starting meshes (cloth.Sim.Perturb) to sample how far the figures of a
	// chaotic run move with its start.
	Perturb int64
	// Starts, when above 1, runs the bench that many times (BenchStarts),
	// from the seeds Perturb, Perturb+1, …, and sums up each figure's
	// spread over them.
	Starts   int
	Progress Progress
	Now      func() time.Time // clock; nil means time.Now
}

// BenchRun is one run's figures; the series feed the plots.
type BenchRun struct {
	Steps           int     `json:"steps"`
	AvgTriangles    float64 `json:"avg_triangles"`  // mean live triangle count over the steps
	PeakTriangles   int     `json:"peak_triangles"` // largest live triangle count
	MsPerStepMean   float64 `json:"ms_per_step_mean"`
	MsPerStepMedian float64 `json:"ms_per_step_median"`
	AdaptShare      float64 `json:"adapt_share"`   // Σ adaptation time / Σ step time, 0..1
	CollideShare    float64 `json:"collide_share"` // Σ collision-handling time / Σ step time, 0..1
	PCGIterations   float64 `json:"pcg_iterations_mean"`
	// TriIters is the mean over steps of live triangles × PCG iterations,
	// the work the solver does if its cost is proportional to both.
	TriIters float64 `json:"triangle_iterations_mean"`
	// Means per step of the assembly, the PCG solve and the adaptation, ms.
	AssembleMs float64 `json:"assemble_ms_mean"`
	SolveMs    float64 `json:"solve_ms_mean"`
	AdaptMs    float64 `json:"adapt_ms_mean"`
	CollideMs  float64 `json:"collide_ms_mean"`
	Finite     bool    `json:"finite"` // false if the run blew up
	Error      string  `json:"error,omitempty"`

	times []float64 // s, after each step
	tris  []int
	iters []int     // PCG iterations per step (the recorder's, set by result)
	sprs  []int     // repulsion springs in the step's solve
	ms    []float64 // wall ms per step
}

// BenchResult is what --json writes.
type BenchResult struct {
	Scene     string   `json:"scene"`
	Seconds   float64  `json:"seconds"` // simulated per run
	GMax      int      `json:"g_max"`
	Perturb   int64    `json:"perturb,omitempty"` // --perturb's seed; 0: the scene's own start
	Full      BenchRun `json:"full"`
	Adaptive  BenchRun `json:"adaptive"`
	Speedup   float64  `json:"speedup"`    // full ms/step mean ÷ adaptive ms/step mean
	WorkRatio float64  `json:"work_ratio"` // full ÷ adaptive triangle_iterations_mean: the speedup if time were proportional to triangles × iterations
	// SpeedupBound is the speedup the adaptive run would reach at the full
	// run's cost per triangle for the assembly and per triangle × PCG
	// iteration for the rest of the step, with its own adaptation time on
	// top: full ms/step mean ÷ (A_full·T_ad/T_full + (S_full − A_full)·W_ad/W_full
	// + adapt_ad), with A assembly and S step ms means, T average
	// triangles and W triangle_iterations_mean.
	SpeedupBound float64 `json:"speedup_bound"`
	ErrorRMSRel  float64 `json:"error_rms_rel"` // RMS distance of full-resolution vertices to the adaptive surface ÷ cloth diagonal
	ErrorMaxRel  float64 `json:"error_max_rel"` // largest such distance ÷ cloth diagonal
	Diagonal     float64 `json:"cloth_diagonal"`
	Samples      int     `json:"accuracy_samples"` // matching times compared

	// Timeline is both runs' figures second by second (benchWindow):
	// where in the run each does its work, which the whole-run means
	// hide.
	Timeline []BenchWindow `json:"timeline"`

	// Springs is the comparison of a springs scene (springs.go): its
	// cloth with no, uniform and dynamic subdivision; the FEM fields
	// above are then zero.
	Springs *SpringsBench `json:"springs,omitempty"`
}

// Bench implements "drape bench".
func Bench(o BenchOptions, stdout io.Writer) (BenchResult, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	scene, err := scene.LoadScene(assets.Scenes, o.Scene)
	if err != nil {
		return BenchResult{}, err
	}
	if scene.IsSprings() {
		if o.Perturb != 0 || o.Starts > 1 {
			return BenchResult{}, fmt.Errorf("scene %s: --perturb and --starts nudge a cloth mesh's start; a springs scene has none to nudge", scene.Name)
		}
		return benchSprings(o, scene) // springs.go
	}
	steps, every, err := adaptiveRuns(scene, o.Seconds, o.Sample, "curtain-adaptive")
	if err != nil {
		return BenchResult{}, err
	}
	dt := scene.Params.Dt
	res := BenchResult{Scene: scene.Name, Seconds: float64(steps) * dt, GMax: scene.Adapt.GMax, Perturb: o.Perturb}

	fullScene, err := FullResolution(scene, scene.Adapt.GMax)
	if err != nil {
		return res, err
	}
	full, err := fullScene.Build()
	if err != nil {
		return res, err
	}
	adaptive, err := scene.Build()
	if err != nil {
		return res, err
	}
	if o.Perturb != 0 {
		if err := full.Perturb(o.Perturb, perturbSize); err != nil {
			return res, err
		}
		if err := adaptive.Perturb(o.Perturb, perturbSize); err != nil {
			return res, err
		}
	}
	lo, hi := restBounds(full.Mesh)
	res.Diagonal = hi.Sub(lo).Norm()
	if o.Progress != nil {
		o.Progress.Update(0, 2*steps)
	}
	// The two runs take turns, benchBlock steps each, so that both see
	// the same machine: on a shared host the speed drifts by tens of
	// per cent over seconds, and run one after the other the two halves
	// of a speedup would be measured at different speeds.
	fr, ar := &benchSide{s: full, now: o.Now}, &benchSide{s: adaptive, now: o.Now}
	var snaps [][]geom.Vec3 // full-resolution positions at this block's sample steps
	var dist SurfaceDistance
	for first := 1; first <= steps; first += benchBlock {
		last := min(first+benchBlock-1, steps)
		snaps = snaps[:0]
		for i := first; i <= last && fr.step(); i++ {
			if i%every == 0 {
				snaps = append(snaps, livePositions(full.Mesh))
			}
		}
		k := 0
		for i := first; i <= last && ar.step(); i++ {
			if i%every != 0 {
				continue
			}
			if k < len(snaps) { // the full run reached step i
				dist.Add(geom.NewSurfaceGrid(adaptive.Mesh), snaps[k])
				res.Samples++
			}
			k++
		}
		if o.Progress != nil {
			o.Progress.Update(len(fr.rec.wall)+len(ar.rec.wall), 2*steps)
		}
	}
	if o.Progress != nil {
		o.Progress.Done()
	}
	res.Full, res.Adaptive = fr.result(), ar.result()
	res.Timeline = timeline(fr, ar, dt, benchWindow)
	res.ErrorRMSRel, res.ErrorMaxRel = dist.Relative(res.Diagonal)
	if res.Adaptive.MsPerStepMean > 0 {
		res.Speedup = res.Full.MsPerStepMean / res.Adaptive.MsPerStepMean
	}
	if res.Adaptive.TriIters > 0 {
		res.WorkRatio = res.Full.TriIters / res.Adaptive.TriIters
	}
	if f, a := res.Full, res.Adaptive; f.AvgTriangles > 0 && f.TriIters > 0 {
		ideal := f.AssembleMs*a.AvgTriangles/f.AvgTriangles + (f.MsPerStepMean-f.AssembleMs)*a.TriIters/f.TriIters + a.AdaptMs
		if ideal > 0 {
			res.SpeedupBound = f.MsPerStepMean / ideal
		}
	}
	var errs []error
	for _, r := range []struct {
		name string
		run  *BenchRun
	}{{"full resolution", &res.Full}, {"adaptive", &res.Adaptive}} {
		if r.run.Error != "" {
			errs = append(errs, fmt.Errorf("%s run: %s", r.name, r.run.Error))
		}
	}
	return res, errors.Join(errs...)
}

// benchBlock is the number of steps each run takes in its turn.
const benchBlock = 20

// benchWindow is the span of simulated time, s, that each entry of the
// timeline sums up. On the gathering curtain the adaptive run does 95 %
// of its triangles × PCG iterations in 7–16 s of its 20
// (docs/notes/contact.md, "Where the curtain's speedup goes"): a second
// resolves that.
const benchWindow = 1.0

// BenchWindow is one span of simulated time in both runs: the means per
// step over the steps that end in (From, To] s.
type BenchWindow struct {
	From     float64     `json:"from"`
	To       float64     `json:"to"`
	Full     WindowMeans `json:"full"`
	Adaptive WindowMeans `json:"adaptive"`
}

// WindowMeans are one run's means per step over a BenchWindow (all zero,
// with Steps 0, when the run did not reach it).
type WindowMeans struct {
	Steps         int     `json:"steps"`
	Triangles     float64 `json:"triangles"`
	PCGIterations float64 `json:"pcg_iterations"`
	// TriIters is the mean of live triangles × PCG iterations, as the
	// whole run's triangle_iterations_mean.
	TriIters float64 `json:"triangle_iterations"`
	// Springs is the mean number of repulsion springs in the solve
	// (cloth.StepStats.Springs), which cost the gathering curtain's
	// solve iterations (docs/notes/contact.md).
	Springs   float64 `json:"springs"`
	Ms        float64 `json:"ms"`
	CollideMs float64 `json:"collide_ms"`
}

// timeline sums up both runs' recorded steps (dt apart, the first ending
// at dt) in windows of span s: step i, ending at i·dt, falls in window
// ⌈i·dt/span⌉ − 1, so a step that ends on a window's end belongs to it.
func timeline(full, ad *benchSide, dt, span float64) []BenchWindow {
	n := max(len(full.rec.wall), len(ad.rec.wall))
	if n == 0 || !(dt > 0) || !(span > 0) {
		return nil
	}
	window := func(i int) int { // i: 0-based step
		// The tolerance keeps round-off in i·dt/span off a window's end.
		return max(0, int(math.Ceil(float64(i+1)*dt/span-1e-9))-1)
	}
	out := make([]BenchWindow, window(n-1)+1)
	for k := range out {
		out[k].From, out[k].To = float64(k)*span, float64(k+1)*span
	}
	for _, side := range []struct {
		b   *benchSide
		get func(w *BenchWindow) *WindowMeans
	}{
		{full, func(w *BenchWindow) *WindowMeans { return &w.Full }},
		{ad, func(w *BenchWindow) *WindowMeans { return &w.Adaptive }},
	} {
		r := &side.b.rec
		for i, wall := range r.wall {
			m := side.get(&out[window(i)])
			tris, it := float64(side.b.run.tris[i]), float64(r.iters[i])
			m.Steps++
			m.Triangles += tris
			m.PCGIterations += it
			m.TriIters += tris * it
			m.Springs += float64(side.b.run.sprs[i])
			m.Ms += float64(wall) / float64(time.Millisecond)
			m.CollideMs += float64(r.collide[i]) / float64(time.Millisecond)
		}
		for k := range out {
			if m := side.get(&out[k]); m.Steps > 0 {
				c := 1 / float64(m.Steps)
				m.Triangles *= c
				m.PCGIterations *= c
				m.TriIters *= c
				m.Springs *= c
				m.Ms *= c
				m.CollideMs *= c
			}
		}
	}
	return out
}

// benchSide is one run of the comparison, stepped a turn at a time.
type benchSide struct {
	s             *cloth.Sim
	now           func() time.Time
	rec           recorder
	run           BenchRun
	asm, solve    time.Duration
	triSum, works float64
	err           error
}

// step takes one timed step and records it; it reports false, without
// stepping, once a step has failed.
func (b *benchSide) step() bool {
	if b.err != nil {
		return false
	}
	st, err := b.rec.step(b.s, b.now)
	if err != nil {
		b.err = err
		return false
	}
	wall := b.rec.wall[len(b.rec.wall)-1]
	n := b.s.Mesh.NumTris()
	b.triSum += float64(n)
	b.works += float64(n) * float64(st.Iterations)
	b.run.PeakTriangles = max(b.run.PeakTriangles, n)
	b.run.times = append(b.run.times, b.s.Time)
	b.run.tris = append(b.run.tris, n)
	b.run.sprs = append(b.run.sprs, st.Springs)
	b.run.ms = append(b.run.ms, float64(wall)/float64(time.Millisecond))
	b.asm += st.Assemble
	b.solve += st.Solve
	return true
}

// result returns the run's figures.
func (b *benchSide) result() BenchRun {
	r := b.run
	r.Steps = len(b.rec.wall)
	r.iters = b.rec.iters
	r.MsPerStepMean, r.MsPerStepMedian, r.PCGIterations = b.rec.summary()
	var total, adapt, collide time.Duration
	for i, w := range b.rec.wall {
		total += w
		adapt += b.rec.adapt[i]
		collide += b.rec.collide[i]
	}
	if r.Steps > 0 {
		r.AvgTriangles = b.triSum / float64(r.Steps)
		r.TriIters = b.works / float64(r.Steps)
		perStep := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(r.Steps) }
		r.AssembleMs, r.SolveMs, r.AdaptMs, r.CollideMs = perStep(b.asm), perStep(b.solve), perStep(adapt), perStep(collide)
	}
	if total > 0 {
		r.AdaptShare = float64(adapt) / float64(total)
		r.CollideShare = float64(collide) / float64(total)
	}
	r.Finite = b.s.Finite() && !errors.Is(b.err, cloth.ErrUnstable)
	if b.err != nil {
		r.Error = b.err.Error()
	}
	return r
}

func restBounds(m *geom.Mesh) (lo, hi geom.Vec3) {
	lo = geom.Vec3{X: math.Inf(1), Y: math.Inf(1)}
	hi = geom.Vec3{X: math.Inf(-1), Y: math.Inf(-1)}
	for i, r := range m.Rest {
		if m.VertAlive[i] {
			lo.X, lo.Y = math.Min(lo.X, r.X), math.Min(lo.Y, r.Y)
			hi.X, hi.Y = math.Max(hi.X, r.X), math.Max(hi.Y, r.Y)
		}
	}
	return lo, hi
}

func livePositions(m *geom.Mesh) []geom.Vec3 {
	out := make([]geom.Vec3, 0, m.NumVerts())
	for i, p := range m.Pos {
		if m.VertAlive[i] {
			out = append(out, p)
		}
	}
	return out
}

// WriteBenchTable prints the comparison as a markdown table.
func WriteBenchTable(w io.Writer, r BenchResult) {
	if r.Springs != nil {
		writeSpringsBenchTable(w, r)
		return
	}
	fmt.Fprintf(w, "%s, %.3g s simulated per run, g_max = %d", r.Scene, r.Seconds, r.GMax)
	if r.Perturb != 0 {
		fmt.Fprintf(w, ", start perturbed (--perturb %d)", r.Perturb)
	}
	fmt.Fprint(w, "\n\n")
	fmt.Fprintln(w, "| run | avg triangles | peak triangles | ms/step mean | ms/step median | adaptation share | collision share | PCG iterations mean | finite |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, x := range []struct {
		name string
		r    BenchRun
	}{{"full resolution", r.Full}, {"adaptive", r.Adaptive}} {
		fmt.Fprintf(w, "| %s | %.0f | %d | %.2f | %.2f | %.1f %% | %.1f %% | %.1f | %v |\n", x.name, x.r.AvgTriangles, x.r.PeakTriangles,
			x.r.MsPerStepMean, x.r.MsPerStepMedian, 100*x.r.AdaptShare, 100*x.r.CollideShare, x.r.PCGIterations, x.r.Finite)
	}
	fmt.Fprintf(w, "\nspeedup %.2f× (%.2f× fewer triangles × PCG iterations per step; %.2f× at the full run's cost per unit of work); accuracy loss (full-resolution vertices to the adaptive surface, %d matching times, relative to the %.3g m cloth diagonal): RMS %.3g, max %.3g\n",
		r.Speedup, r.WorkRatio, r.SpeedupBound, r.Samples, r.Diagonal, r.ErrorRMSRel, r.ErrorMaxRel)
}

// WriteBenchPlots writes triangles.png, pcg_iterations.png and
// ms_per_step.png into dir.
func WriteBenchPlots(dir string, r BenchResult) error {
	if r.Springs != nil {
		return fmt.Errorf("bench plots are drawn for FEM scenes only, not for the springs scene %s", r.Scene)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating plot directory: %w", err)
	}
	toF := func(x []int) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = float64(v)
		}
		return out
	}
	plots := []struct {
		file, yLabel string
		full, ad     []float64
	}{
		{"triangles.png", "TRIANGLES", toF(r.Full.tris), toF(r.Adaptive.tris)},
		{"pcg_iterations.png", "PCG ITERATIONS (MEAN OF 20)", movingMean(toF(r.Full.iters), 20), movingMean(toF(r.Adaptive.iters), 20)},
		{"ms_per_step.png", "MS PER STEP (MEAN OF 20)", movingMean(r.Full.ms, 20), movingMean(r.Adaptive.ms, 20)},
	}
	for _, p := range plots {
		pl := plot{series: []series{
			{x: r.Full.times, y: p.full, color: colorFull},
			{x: r.Adaptive.times, y: p.ad, color: colorAdaptive},
		}, xLabel: "SIMULATED TIME S", yLabel: p.yLabel, names: []string{"FULL", "ADAPTIVE"}}
		if err := pl.writePNG(filepath.Join(dir, p.file)); err != nil {
			return err
		}
	}
	return nil
}

// movingMean returns the centred moving average over k samples.
func movingMean(x []float64, k int) []float64 {
	out := make([]float64, len(x))
	for i := range x {
		lo, hi := max(0, i-k/2), min(len(x), i+k/2+1)
		var s float64
		for _, v := range x[lo:hi] {
			s += v
		}
		out[i] = s / float64(hi-lo)
	}
	return out
}

// perturbSize is the standard deviation of the nudge --perturb gives both
// runs' starts (cloth.Sim.Perturb), m: far below anything the cloth
// resolves (h is 3 mm). Self-colliding, folding cloth is chaotic: over
// five starts (four of them nudged) the adaptive sphere scene's mean
// triangle count over 3 s ranged from 2391 to 2740 (docs/notes/contact.md),
// so a change that alters the trajectory at all is compared over several
// seeds.
const perturbSize = 1e-7

// adaptiveRuns checks that sc can be run adaptive and uniformly refined to
// its g_max (an "adapt" section with an even g_max, as RefineUniform
// needs) and returns the steps of a run of seconds (0: the scene's
// duration) and the steps between samples; hint names a scene to try.
func adaptiveRuns(sc *scene.Scene, seconds, sample float64, hint string) (steps, every int, err error) {
	if sc.Adapt == nil {
		return 0, 0, fmt.Errorf("scene %s has no \"adapt\" section: nothing to compare (try %s)", sc.Name, hint)
	}
	if !adapt.UniformGeneration(sc.Adapt.GMax) {
		return 0, 0, fmt.Errorf("scene %s: adapt.g_max must be even for a uniformly refined mesh, got %d", sc.Name, sc.Adapt.GMax)
	}
	if seconds == 0 {
		seconds = sc.Duration
	}
	dt := sc.Params.Dt
	return max(1, int(math.Round(seconds/dt))), max(1, int(math.Round(sample/dt))), nil
}

// BenchSeries is what --json writes with --starts N, N > 1: every start's
// result and each figure's spread over the starts.
type BenchSeries struct {
	Starts []BenchResult  `json:"starts"`
	Spread []FigureSpread `json:"spread"`
}

// FigureSpread is one figure's smallest, median and largest value over a
// series of starts.
type FigureSpread struct {
	Figure string  `json:"figure"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// spreadFigures are the figures BenchSeries sums up, with how each is
// read from a result: the ones a chaotic start moves (the full run's
// triangles are fixed) and the ones the issues set targets on.
var spreadFigures = []struct {
	name string
	of   func(r *BenchResult) float64
}{
	{"full: ms/step mean", func(r *BenchResult) float64 { return r.Full.MsPerStepMean }},
	{"full: collision share", func(r *BenchResult) float64 { return r.Full.CollideShare }},
	{"full: PCG iterations mean", func(r *BenchResult) float64 { return r.Full.PCGIterations }},
	{"adaptive: avg triangles", func(r *BenchResult) float64 { return r.Adaptive.AvgTriangles }},
	{"adaptive: ms/step mean", func(r *BenchResult) float64 { return r.Adaptive.MsPerStepMean }},
	{"adaptive: adaptation share", func(r *BenchResult) float64 { return r.Adaptive.AdaptShare }},
	{"adaptive: collision share", func(r *BenchResult) float64 { return r.Adaptive.CollideShare }},
	{"adaptive: PCG iterations mean", func(r *BenchResult) float64 { return r.Adaptive.PCGIterations }},
	{"speedup", func(r *BenchResult) float64 { return r.Speedup }},
	{"work ratio", func(r *BenchResult) float64 { return r.WorkRatio }},
	{"speedup bound", func(r *BenchResult) float64 { return r.SpeedupBound }},
	{"accuracy loss RMS", func(r *BenchResult) float64 { return r.ErrorRMSRel }},
	{"accuracy loss max", func(r *BenchResult) float64 { return r.ErrorMaxRel }},
}

// BenchStarts implements "drape bench --starts N": Bench from the seeds
// o.Perturb, o.Perturb+1, …, o.Perturb+N−1 (seed 0 is the scene's own
// start), one after the other, writing each start's table to stdout as it
// ends. Self-colliding, folding cloth is chaotic, and one start's figures
// cannot tell a change that alters the trajectory from the noise of its
// start (docs/performance.md, "What drape bench measures"); the spread
// over several can. On an error it
// returns the starts done so far, and the spread over them.
func BenchStarts(o BenchOptions, stdout io.Writer) (BenchSeries, error) {
	var ser BenchSeries
	n := max(o.Starts, 1)
	for k := 0; k < n; k++ {
		ok := o
		ok.Perturb = o.Perturb + int64(k)
		res, err := Bench(ok, stdout)
		if res.Scene != "" {
			WriteBenchTable(stdout, res)
			fmt.Fprintln(stdout)
		}
		if err != nil {
			ser.Spread = spreadOf(ser.Starts)
			return ser, fmt.Errorf("start %d of %d (--perturb %d): %w", k+1, n, ok.Perturb, err)
		}
		ser.Starts = append(ser.Starts, res)
	}
	ser.Spread = spreadOf(ser.Starts)
	return ser, nil
}

// spreadOf sums up every figure of spreadFigures over rs.
func spreadOf(rs []BenchResult) []FigureSpread {
	if len(rs) == 0 {
		return nil
	}
	out := make([]FigureSpread, 0, len(spreadFigures))
	xs := make([]float64, len(rs))
	for _, f := range spreadFigures {
		for i := range rs {
			xs[i] = f.of(&rs[i])
		}
		med := medianOf(xs) // sorts xs
		out = append(out, FigureSpread{Figure: f.name, Min: xs[0], Median: med, Max: xs[len(xs)-1]})
	}
	return out
}

// WriteBenchSpread prints a series' spread as a markdown table (shares in
// per cent).
func WriteBenchSpread(w io.Writer, ser BenchSeries) {
	if len(ser.Starts) == 0 {
		return
	}
	first, last := ser.Starts[0].Perturb, ser.Starts[len(ser.Starts)-1].Perturb
	fmt.Fprintf(w, "%s over %d starts (--perturb %d to %d; 0 is the scene's own start)\n\n", ser.Starts[0].Scene, len(ser.Starts), first, last)
	fmt.Fprintln(w, "| figure | min | median | max |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, f := range ser.Spread {
		scale, unit := 1.0, ""
		if strings.HasSuffix(f.Figure, "share") {
			scale, unit = 100, " %"
		}
		fmt.Fprintf(w, "| %s | %.4g%s | %.4g%s | %.4g%s |\n", f.Figure, scale*f.Min, unit, scale*f.Median, unit, scale*f.Max, unit)
	}
}
