package headless

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/detail"
	"drape/sim/geom"
	"drape/sim/meshio"
	"drape/sim/scene"
)

// This file holds the headless stepping loop shared by "drape run" and
// "drape bench": timing, statistics, OBJ frames and progress output.

// RunOptions are the flags of "drape run".
type RunOptions struct {
	Scene    string                         // built-in scene name or scene file
	Steps    int                            // 0: the scene's duration / dt
	Out      string                         // frame directory, "" for none
	Every    int                            // frame interval, steps
	Color    func(h, half float64) [3]uint8 // with Format "ply": the colour of display mean curvature h (1/m, geom.DisplayCurvature) in the range ±half (main wires the viewer's map)
	Format   string                         // frame format: "obj" or "ply"
	Detail   int                            // with Out: write the physics-aware detail surface at this Loop level (1–3; package detail) instead of the simulation mesh; 0 for the mesh
	Stats    string                         // statistics file, "" for none
	Progress Progress
	Now      func() time.Time // clock; nil means time.Now

	// Cache, when set, writes the run into Out as one fixed mesh and a
	// point cache in this format instead of frames (cache.go).
	Cache     meshio.CacheFormat
	CacheMesh string  // with Cache: CacheMeshGMax ("" too), CacheMeshBase, or an OBJ file whose vt are material coordinates
	FPS       float64 // with Cache: frames per simulated second
}

// RunStats is what --stats writes. Fields that can be non-finite after a
// blow-up are pointers, written as null then (JSON has no NaN).
type RunStats struct {
	Scene             string   `json:"scene"`
	Steps             int      `json:"steps"` // steps completed
	Dt                float64  `json:"dt"`    // s
	Vertices          int      `json:"vertices"`
	Triangles         int      `json:"triangles"`
	MsPerStepMean     float64  `json:"ms_per_step_mean"`   // wall-clock ms
	MsPerStepMedian   float64  `json:"ms_per_step_median"` // wall-clock ms
	PCGIterationsMean float64  `json:"pcg_iterations_mean"`
	Retried           int      `json:"retried"`    // steps the substep failsafe redid as halves (cloth.Sim.Retried)
	TotalMass         *float64 `json:"total_mass"` // kg
	MaxSpeed          *float64 `json:"max_speed"`  // m/s
	Finite            bool     `json:"finite"`     // false if a step went unstable
	Error             string   `json:"error,omitempty"`
}

// recorder collects per-step wall times and PCG iteration counts.
type recorder struct {
	wall    []time.Duration
	iters   []int
	adapt   []time.Duration // StepStats.Adapt, part of wall
	collide []time.Duration // StepStats.Collide, part of wall
}

func (r *recorder) add(wall time.Duration, st cloth.StepStats) {
	r.wall = append(r.wall, wall)
	r.iters = append(r.iters, st.Iterations)
	r.adapt = append(r.adapt, st.Adapt)
	r.collide = append(r.collide, st.Collide)
}

// summary returns the mean and median wall time per step in ms and the
// mean PCG iteration count; all zero when no step was recorded.
func (r *recorder) summary() (mean, median, iters float64) {
	n := len(r.wall)
	if n == 0 {
		return 0, 0, 0
	}
	ms := make([]float64, n)
	for i, w := range r.wall {
		ms[i] = float64(w) / float64(time.Millisecond)
		mean += ms[i]
		iters += float64(r.iters[i])
	}
	return mean / float64(n), medianOf(ms), iters / float64(n)
}

// medianOf sorts xs and returns its median (the mean of the middle two
// for an even count; 0 for none).
func medianOf(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	sort.Float64s(xs)
	if n%2 == 0 {
		return 0.5 * (xs[n/2-1] + xs[n/2])
	}
	return xs[n/2]
}

// stepper is the part of *cloth.Sim that stepLoop drives.
type stepper interface {
	Step() (cloth.StepStats, error)
}

// stepLoop runs up to steps steps of s, timing each with now and
// recording the successful ones, calling after(i) after step i (1-based).
// It stops at the first error and returns the number of steps completed.
func stepLoop(s stepper, steps int, now func() time.Time, rec *recorder, after func(i int) error) (int, error) {
	for i := 1; i <= steps; i++ {
		if _, err := rec.step(s, now); err != nil {
			return i - 1, err
		}
		if err := after(i); err != nil {
			return i, err
		}
	}
	return steps, nil
}

// step takes the next step of s, timed with now, and records it if it
// succeeds; the error names the step's number.
func (r *recorder) step(s stepper, now func() time.Time) (cloth.StepStats, error) {
	t0 := now()
	st, err := s.Step()
	if err != nil {
		return st, fmt.Errorf("step %d: %w", len(r.wall)+1, err)
	}
	r.add(now().Sub(t0), st)
	return st, nil
}

// Run implements "drape run".
func Run(o RunOptions, stdout io.Writer) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	scene, err := scene.LoadScene(assets.Scenes, o.Scene)
	if err != nil {
		return err
	}
	if scene.IsSprings() {
		if o.Cache != 0 {
			return fmt.Errorf("scene %s: a point cache samples a FEM cloth's material plane; the spring cloth has none (use --format obj frames)", scene.Name)
		}
		return runSprings(o, scene, stdout) // springs.go
	}
	s, err := scene.Build()
	if err != nil {
		return err
	}
	steps := o.Steps
	if steps == 0 {
		steps = max(1, int(math.Round(scene.Duration/scene.Params.Dt)))
	}
	writeFrame := func(i int) error { return nil }
	var cache *cacheExport
	if o.Cache != 0 {
		if cache, err = newCacheExport(o, scene, s, steps); err != nil {
			return fmt.Errorf("scene %s: %w", scene.Name, err)
		}
		writeFrame = cache.frame
		if err := writeFrame(0); err != nil {
			return err
		}
	} else if o.Out != "" {
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return fmt.Errorf("creating frame directory: %w", err)
		}
		var det *detail.Detailer
		var frame detail.Frame
		var surf detail.Surface
		if o.Detail > 0 {
			dp := detail.DefaultParams()
			dp.Level = o.Detail
			dp.MaxIter, dp.MaxCG = 20, 60 // exports: closer to converged than the viewer's budget
			if err := dp.Validate(); err != nil {
				return fmt.Errorf("detail: %w", err)
			}
			det = detail.NewDetailer(dp)
		}
		writeFrame = func(i int) error {
			if i%o.Every != 0 {
				return nil
			}
			if det != nil {
				detail.FrameOf(s.Mesh, &frame)
				frame.Obstacles = frame.Obstacles[:0]
				for _, ob := range s.Obstacles() {
					frame.Obstacles = append(frame.Obstacles, detail.ObstacleAt(ob, ob.Pose(s.Time)))
				}
				if _, err := det.Update(&frame, &surf); err != nil {
					return fmt.Errorf("detail of step %d: %w", i, err)
				}
				return writeDetailFile(filepath.Join(o.Out, fmt.Sprintf("frame_%06d.%s", i, o.Format)), &surf, o.Format)
			}
			if o.Format == "ply" {
				return writePLYFile(filepath.Join(o.Out, fmt.Sprintf("frame_%06d.ply", i)), s.Mesh, o.Color)
			}
			return writeOBJFile(filepath.Join(o.Out, fmt.Sprintf("frame_%06d.obj", i)), s.Mesh)
		}
		if err := writeFrame(0); err != nil {
			return err
		}
	}
	var rec recorder
	if o.Progress != nil {
		o.Progress.Update(0, steps)
	}
	done, stepErr := stepLoop(s, steps, o.Now, &rec, func(i int) error {
		if o.Progress != nil {
			o.Progress.Update(i, steps)
		}
		return writeFrame(i)
	})
	if o.Progress != nil {
		o.Progress.Done()
	}
	var cacheLine string
	var cacheErr error
	if cache != nil {
		cacheLine, cacheErr = cache.close()
	}
	st := statsOf(scene.Name, s, &rec, stepErr)
	st.Steps = done
	if o.Stats != "" {
		if err := WriteJSONFile(o.Stats, st); err != nil {
			return errors.Join(stepErr, err, cacheErr)
		}
	}
	fmt.Fprintln(stdout, summaryLine(st))
	if cacheLine != "" {
		fmt.Fprintln(stdout, cacheLine)
	}
	if stepErr != nil {
		if errors.Is(stepErr, cloth.ErrUnstable) {
			return errors.Join(fmt.Errorf("scene %s became unstable at %w; try a smaller dt", scene.Name, stepErr), cacheErr)
		}
		return errors.Join(fmt.Errorf("scene %s: %w", scene.Name, stepErr), cacheErr)
	}
	return cacheErr
}

// statsOf returns the statistics of a finished (or failed) run.
func statsOf(name string, s *cloth.Sim, rec *recorder, stepErr error) RunStats {
	mean, median, iters := rec.summary()
	st := RunStats{
		Scene: name, Steps: len(rec.wall), Dt: s.Params().Dt,
		Vertices: s.Mesh.NumVerts(), Triangles: s.Mesh.NumTris(),
		MsPerStepMean: mean, MsPerStepMedian: median, PCGIterationsMean: iters, Retried: s.Retried(),
		TotalMass: finiteOrNil(s.TotalMass()), MaxSpeed: finiteOrNil(s.MaxSpeed()),
		Finite: s.Finite() && !errors.Is(stepErr, cloth.ErrUnstable),
	}
	if stepErr != nil {
		st.Error = stepErr.Error()
	}
	return st
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// summaryLine is the human summary printed at the end of a run.
func summaryLine(st RunStats) string {
	speed := "not finite"
	if st.MaxSpeed != nil {
		speed = fmt.Sprintf("%.3g m/s", *st.MaxSpeed)
	}
	return fmt.Sprintf("%s: %d steps (%.3g s simulated), %d vertices, %d triangles: %.3g ms/step mean, %.3g median, %.1f PCG iterations mean, %d retried; max speed %s",
		st.Scene, st.Steps, float64(st.Steps)*st.Dt, st.Vertices, st.Triangles, st.MsPerStepMean, st.MsPerStepMedian, st.PCGIterationsMean, st.Retried, speed)
}

func writeOBJFile(path string, m *geom.Mesh) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing frame: %w", err)
	}
	if err := meshio.WriteOBJ(f, m); err != nil {
		f.Close()
		return fmt.Errorf("writing frame %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing frame %s: %w", path, err)
	}
	return nil
}

// writePLYFile writes m as PLY (meshio.WritePLY) coloured by color as the
// viewer colours it: the display mean curvature (geom.DisplayCurvature)
// over ±max(98th percentile of its magnitude, 0.5/m) of this frame, the
// viewer's automatic range.
func writePLYFile(path string, m *geom.Mesh, color func(h, half float64) [3]uint8) error {
	h := make([]float64, len(m.Pos))
	geom.MeanCurvature(m, h)
	hd := make([]float64, len(m.Pos))
	geom.DisplayCurvature(m, h, 0, hd)
	var abs []float64
	for i, v := range hd {
		if m.VertAlive[i] && !math.IsNaN(v) {
			abs = append(abs, math.Abs(v))
		}
	}
	half := 0.0
	if len(abs) > 0 {
		sort.Float64s(abs)
		half = abs[int(math.Round(0.98*float64(len(abs)-1)))]
	}
	half = math.Max(half, 0.5)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing frame: %w", err)
	}
	if err := meshio.WritePLY(f, m, h, hd, func(h float64) [3]uint8 { return color(h, half) }); err != nil {
		f.Close()
		return fmt.Errorf("writing frame %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing frame %s: %w", path, err)
	}
	return nil
}

func WriteJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing statistics: %w", err)
	}
	return nil
}

// Progress reports how many of total steps are done.
type Progress interface {
	Update(done, total int)
	Done()
}

// NewProgress returns a redrawn bar when w is a terminal, periodic lines
// (every 10 %) otherwise, counting steps.
func NewProgress(w io.Writer) Progress { return NewProgressOf(w, "step") }

// NewProgressOf is newProgress counting unit ("step", "frame").
func NewProgressOf(w io.Writer, unit string) Progress {
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return &barProgress{w: w, last: -1, unit: unit}
		}
	}
	return &lineProgress{w: w, unit: unit}
}

// barProgress redraws one line with \r.
type barProgress struct {
	w    io.Writer
	last int    // last percentage drawn
	unit string // what is counted, e.g. "step"
}

func (p *barProgress) Update(done, total int) {
	pct := 100 * done / max(total, 1)
	if pct == p.last && done != total {
		return
	}
	p.last = pct
	const width = 40
	n := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %3d%% %s %d/%d", strings.Repeat("#", n), strings.Repeat(".", width-n), pct, p.unit, done, total)
}

func (p *barProgress) Done() { fmt.Fprintln(p.w) }

// lineProgress prints a line at every 10 %.
type lineProgress struct {
	w    io.Writer
	last int    // last decile printed
	unit string // what is counted, e.g. "step"
}

func (p *lineProgress) Update(done, total int) {
	if done == 0 {
		return
	}
	dec := 10 * done / max(total, 1)
	if dec == p.last {
		return
	}
	p.last = dec
	fmt.Fprintf(p.w, "%s %d/%d (%d%%)\n", p.unit, done, total, 100*done/max(total, 1))
}

func (p *lineProgress) Done() {}

// writeDetailFile writes a detailed surface as OBJ or PLY (detail.WriteSurface).
func writeDetailFile(path string, s *detail.Surface, format string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = detail.WriteSurface(f, s, nil, format)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
