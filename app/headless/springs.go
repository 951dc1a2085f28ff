package headless

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
	"drape/sim/springs"
)

// This file runs scenes of the mass-spring cloth ("model": "springs",
// package springs) for "drape run" and "drape bench".

// runSprings is Run for a springs scene: the same loop, statistics and
// summary, with particles as vertices and OBJ frames of the cloth's
// surface (springs.Cloth.Surface).
func runSprings(o RunOptions, sc *scene.Scene, stdout io.Writer) error {
	c, err := sc.BuildSprings()
	if err != nil {
		return err
	}
	steps := o.Steps
	if steps == 0 {
		steps = max(1, int(math.Round(sc.Duration/sc.Springs.Dt)))
	}
	var surf springs.Surface
	writeFrame := func(i int) error { return nil }
	if o.Out != "" {
		if o.Format == "ply" {
			return fmt.Errorf("scene %s: PLY frames (mean curvature colours) need a FEM scene; use --format obj for the spring cloth", sc.Name)
		}
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return fmt.Errorf("creating frame directory: %w", err)
		}
		writeFrame = func(i int) error {
			if i%o.Every != 0 {
				return nil
			}
			c.Surface(&surf)
			return writeSurfaceOBJ(filepath.Join(o.Out, fmt.Sprintf("frame_%06d.obj", i)), &surf)
		}
		if err := writeFrame(0); err != nil {
			return err
		}
	}
	var rec recorder
	if o.Progress != nil {
		o.Progress.Update(0, steps)
	}
	done, stepErr := stepLoop(springsStepper{c}, steps, o.Now, &rec, func(i int) error {
		if o.Progress != nil {
			o.Progress.Update(i, steps)
		}
		return writeFrame(i)
	})
	if o.Progress != nil {
		o.Progress.Done()
	}
	mean, median, _ := rec.summary()
	c.Surface(&surf)
	n := c.Counts()
	mass, _ := c.Mass()
	st := RunStats{
		Scene: sc.Name, Steps: done, Dt: c.Dt(),
		Vertices: n.Active + n.Fixed, Triangles: len(surf.Tris),
		MsPerStepMean: mean, MsPerStepMedian: median,
		TotalMass: finiteOrNil(mass), MaxSpeed: finiteOrNil(c.MaxSpeed()),
		Finite: c.Finite() && !errors.Is(stepErr, springs.ErrUnstable),
	}
	if stepErr != nil {
		st.Error = stepErr.Error()
	}
	if o.Stats != "" {
		if err := WriteJSONFile(o.Stats, st); err != nil {
			return errors.Join(stepErr, err)
		}
	}
	fmt.Fprintf(stdout, "%s (mass-spring cloth, %s): %d steps (%.3g s simulated), %d particles (%d interpolated, depth %d), %d triangles: %.3g ms/step mean, %.3g median; max speed %s\n",
		st.Scene, sc.SpringsScene, st.Steps, float64(st.Steps)*st.Dt, st.Vertices, n.Interpolated, n.Depth, st.Triangles, mean, median, speedText(st.MaxSpeed))
	if stepErr != nil {
		if errors.Is(stepErr, springs.ErrUnstable) {
			return fmt.Errorf("scene %s became unstable at %w; the largest stable step is estimated at %.3g ms, try a smaller dt", sc.Name, stepErr, 1e3*c.StableStep())
		}
		return fmt.Errorf("scene %s: %w", sc.Name, stepErr)
	}
	return nil
}

func speedText(v *float64) string {
	if v == nil {
		return "not finite"
	}
	return fmt.Sprintf("%.3g m/s", *v)
}

// springsStepper adapts springs.Cloth to stepper.
type springsStepper struct{ c *springs.Cloth }

func (s springsStepper) Step() (st cloth.StepStats, err error) { return st, s.c.Step() }

// writeSurfaceOBJ writes a spring cloth surface as an OBJ file (vertices
// and faces, 1-based).
func writeSurfaceOBJ(path string, s *springs.Surface) error {
	var b strings.Builder
	for _, p := range s.Pos {
		fmt.Fprintf(&b, "v %.9g %.9g %.9g\n", p.X, p.Y, p.Z)
	}
	for _, t := range s.Tris {
		fmt.Fprintf(&b, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing frame: %w", err)
	}
	return nil
}

// SpringsBench is "drape bench" on a springs scene: the scene's cloth in
// the three variants of Olson & Rudnick §5 (no, uniform and dynamic
// subdivision, at the scene's max_layer), and dynamic subdivision with
// coarsening (package springs' coarsen, not in the paper), run side by
// side.
type SpringsBench struct {
	Base     string            `json:"springs_scene"` // the built-in cloth without its variant suffix
	MaxLayer int               `json:"max_layer"`
	Runs     []SpringsBenchRun `json:"runs"` // none, uniform, dynamic, dynamic+coarsening
}

// SpringsBenchRun is one variant's figures. The distance is that of the
// base particles (the NX×NY particles every variant has, the same cloth
// points) to the same particles of the uniform run, sampled every
// BenchOptions.Sample seconds.
type SpringsBenchRun struct {
	Variant         string  `json:"variant"`
	Steps           int     `json:"steps"`
	Particles       int     `json:"particles"`           // active and fixed at the end
	AvgParticles    float64 `json:"avg_particles"`       // mean over the steps
	AvgSprings      float64 `json:"avg_spring_substeps"` // spring evaluations per step (springs.Work), mean over the steps: the machine-independent cost
	Interpolated    int     `json:"interpolated"`        // at the end
	Depth           int     `json:"depth"`               // deepest layer at the end
	MsPerStepMean   float64 `json:"ms_per_step_mean"`
	MsPerStepMedian float64 `json:"ms_per_step_median"`
	DistanceRMS     float64 `json:"distance_rms"` // m, over all samples
	DistanceMax     float64 `json:"distance_max"` // m
	DistanceEnd     float64 `json:"distance_end"` // m, RMS at the last sample
	Finite          bool    `json:"finite"`
	Error           string  `json:"error,omitempty"`
}

// springsVariants are the runs of benchSprings, the uniform one first (the
// reference). "dynamic" refines only, as the paper does (coarsen_fraction
// 0); "dynamic+coarsening" runs with the scene's coarsen_fraction and is
// left out when that is 0.
var springsVariants = []struct {
	name, suffix string
	coarsen      bool
}{{"uniform", "-uniform", false}, {"none", "", false}, {"dynamic", "-dynamic", false}, {"dynamic+coarsening", "-dynamic", true}}

// benchSprings is Bench for a springs scene. The three runs take turns
// of benchBlock steps, as the FEM comparison's do, so that all see the
// same machine.
func benchSprings(o BenchOptions, sc *scene.Scene) (BenchResult, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(sc.SpringsScene, "-uniform"), "-dynamic")
	secs := o.Seconds
	if secs == 0 {
		secs = sc.Duration
	}
	dt := sc.Springs.Dt
	steps := max(1, int(math.Round(secs/dt)))
	every := max(1, int(math.Round(o.Sample/dt)))
	res := BenchResult{Scene: sc.Name, Seconds: float64(steps) * dt, Springs: &SpringsBench{Base: base, MaxLayer: sc.Springs.MaxLayer}}
	type side struct {
		c           *springs.Cloth
		rec         recorder
		err         error
		partSum     float64
		workSum     float64
		sumSq, wmax float64
		count       int
		endRMS      float64
	}
	var sides []*side
	var names []string
	var nbase int
	for _, v := range springsVariants {
		p := sc.Springs
		if v.coarsen && p.CoarsenFraction == 0 {
			continue
		}
		if !v.coarsen {
			p.CoarsenFraction = 0
		}
		spec, err := springs.Scene(base + v.suffix)
		if err != nil {
			return res, fmt.Errorf("scene %s: %w", sc.Name, err)
		}
		c, err := springs.New(spec, p)
		if err != nil {
			return res, fmt.Errorf("scene %s (%s): %w", sc.Name, v.name, err)
		}
		sides = append(sides, &side{c: c})
		names = append(names, v.name)
		nbase = spec.NX * spec.NY
	}
	if o.Progress != nil {
		o.Progress.Update(0, len(sides)*steps)
	}
	var ref [][]geom.Vec3 // the uniform run's base particles at this block's sample steps
	for first := 1; first <= steps; first += benchBlock {
		last := min(first+benchBlock-1, steps)
		ref = ref[:0]
		for k, s := range sides {
			j := 0
			for i := first; i <= last && s.err == nil; i++ {
				if _, err := s.rec.step(springsStepper{s.c}, o.Now); err != nil {
					s.err = err
					break
				}
				n := s.c.Counts()
				s.partSum += float64(n.Active + n.Fixed)
				s.workSum += float64(s.c.Work().SpringSubsteps)
				if i%every != 0 {
					continue
				}
				if k == 0 {
					ps := make([]geom.Vec3, nbase)
					for id := range ps {
						ps[id] = s.c.Pos(id)
					}
					ref = append(ref, ps)
				} else if j < len(ref) {
					var sq float64
					for id, p := range ref[j] {
						d := s.c.Pos(id).Sub(p).Norm()
						sq += d * d
						s.wmax = math.Max(s.wmax, d)
					}
					s.sumSq += sq
					s.count += nbase
					s.endRMS = math.Sqrt(sq / float64(nbase))
				}
				j++
			}
		}
		if o.Progress != nil {
			done := 0
			for _, s := range sides {
				done += len(s.rec.wall)
			}
			o.Progress.Update(done, len(sides)*steps)
		}
	}
	if o.Progress != nil {
		o.Progress.Done()
	}
	var errs []error
	for k, s := range sides {
		n := s.c.Counts()
		r := SpringsBenchRun{
			Variant: names[k], Steps: len(s.rec.wall),
			Particles: n.Active + n.Fixed, Interpolated: n.Interpolated, Depth: n.Depth,
			DistanceMax: s.wmax, DistanceEnd: s.endRMS,
			Finite: s.c.Finite() && !errors.Is(s.err, springs.ErrUnstable),
		}
		r.MsPerStepMean, r.MsPerStepMedian, _ = s.rec.summary()
		if r.Steps > 0 {
			r.AvgParticles = s.partSum / float64(r.Steps)
			r.AvgSprings = s.workSum / float64(r.Steps)
		}
		if s.count > 0 {
			r.DistanceRMS = math.Sqrt(s.sumSq / float64(s.count))
		}
		if s.err != nil {
			r.Error = s.err.Error()
			errs = append(errs, fmt.Errorf("%s run: %w", r.Variant, s.err))
		}
		res.Springs.Runs = append(res.Springs.Runs, r)
	}
	// Rows in the order none, uniform, dynamic, dynamic+coarsening for the table.
	runs := res.Springs.Runs
	sort.SliceStable(runs, func(a, b int) bool { return variantRank(runs[a].Variant) < variantRank(runs[b].Variant) })
	return res, errors.Join(errs...)
}

func variantRank(v string) int {
	return map[string]int{"none": 0, "uniform": 1, "dynamic": 2, "dynamic+coarsening": 3}[v]
}

// writeSpringsBenchTable prints a springs comparison as a Markdown table.
func writeSpringsBenchTable(w io.Writer, r BenchResult) {
	b := r.Springs
	fmt.Fprintf(w, "%s (mass-spring cloth %s, max_layer %d), %.3g s simulated per run\n\n", r.Scene, b.Base, b.MaxLayer, r.Seconds)
	fmt.Fprintln(w, "| variant | particles (end) | particles (mean) | interpolated | depth | spring evaluations/step (mean) | ms/step mean | ms/step median | distance to uniform, RMS / end / max (mm) | finite |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, x := range b.Runs {
		fmt.Fprintf(w, "| %s | %d | %.0f | %d | %d | %.0f | %.3f | %.3f | %.1f / %.1f / %.1f | %v |\n", x.Variant, x.Particles, x.AvgParticles, x.Interpolated, x.Depth,
			x.AvgSprings, x.MsPerStepMean, x.MsPerStepMedian, 1e3*x.DistanceRMS, 1e3*x.DistanceEnd, 1e3*x.DistanceMax, x.Finite)
	}
	var uni SpringsBenchRun
	for _, x := range b.Runs {
		if x.Variant == "uniform" {
			uni = x
		}
	}
	fmt.Fprintln(w)
	for _, x := range b.Runs {
		if strings.HasPrefix(x.Variant, "dynamic") && x.MsPerStepMean > 0 && x.MsPerStepMedian > 0 {
			fmt.Fprintf(w, "%s vs uniform: %.2f× the speed by the median step (%.2f× by the mean) with %.2f× the mean particles and %.2f× the spring evaluations\n", x.Variant,
				uni.MsPerStepMedian/x.MsPerStepMedian, uni.MsPerStepMean/x.MsPerStepMean, x.AvgParticles/math.Max(uni.AvgParticles, 1), x.AvgSprings/math.Max(uni.AvgSprings, 1))
		}
	}
}
