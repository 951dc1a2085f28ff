package headless

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"drape/assets"
	"drape/sim/scene"
)

// "drape bench --scene all": every built-in scene (or a list of them) as
// it ships, one run each, in one table of the figures issue 43 sets its
// targets on: mean and median ms per step, the real-time factor, the
// collision and solve shares and the PCG iterations. The runs take turns
// of benchTurn simulated seconds, so that all of them see the same
// machine, as the two runs of a comparison do.

// AllScenes is the --scene value that benches every built-in scene.
const AllScenes = "all"

// allSeconds is the simulated time of each run of "drape bench --scene
// all" when --seconds is 0: the span over which issue 43 asks every scene
// to keep real time, longer than most scenes' own duration.
const allSeconds = 15.0

// benchTurn is the simulated time, s, each run takes in its turn: 20 steps
// of the FEM scenes' 5 ms (benchBlock).
const benchTurn = 0.1

// SceneFigures is one scene's row of "drape bench --scene all".
type SceneFigures struct {
	Scene string  `json:"scene"`
	Model string  `json:"model"` // "fem" or "springs"
	Dt    float64 `json:"dt"`    // s
	// RealTime is Δt over the mean wall time of a step: at least 1 keeps
	// real time on average.
	RealTime float64 `json:"real_time_factor"`
	// SolveShare is Σ PCG time / Σ step time, 0..1 (0 for the spring
	// cloth, which has no solve).
	SolveShare float64 `json:"solve_share"`
	BenchRun
}

// BenchAllResult is what "drape bench --scene all --json FILE" writes.
type BenchAllResult struct {
	Seconds    float64        `json:"seconds"` // simulated per scene
	GOMAXPROCS int            `json:"gomaxprocs"`
	NumCPU     int            `json:"num_cpu"`
	Scenes     []SceneFigures `json:"scenes"`
}

// IsSceneList reports whether a --scene value names several scenes for
// BenchAll: "all", or names separated by commas.
func IsSceneList(s string) bool { return s == AllScenes || strings.Contains(s, ",") }

// allRun is one scene's run in BenchAll: a FEM cloth through benchSide,
// or a spring cloth through a recorder alone.
type allRun struct {
	name, model string
	dt          float64
	steps       int
	fem         *benchSide
	spr         springsStepper
	rec         recorder // the spring cloth's
	err         error
}

// step takes one step; it reports false once a step has failed.
func (r *allRun) step(now func() time.Time) bool {
	if r.fem != nil {
		return r.fem.step()
	}
	if r.err != nil {
		return false
	}
	_, r.err = r.rec.step(r.spr, now)
	return r.err == nil
}

// failed reports whether a step has failed.
func (r *allRun) failed() bool { return r.err != nil || r.fem != nil && r.fem.err != nil }

// done returns the steps taken (successful ones).
func (r *allRun) done() int {
	if r.fem != nil {
		return len(r.fem.rec.wall)
	}
	return len(r.rec.wall)
}

// figures returns the run's row.
func (r *allRun) figures() SceneFigures {
	f := SceneFigures{Scene: r.name, Model: r.model, Dt: r.dt}
	if r.fem != nil {
		f.BenchRun = r.fem.result()
		if total := f.MsPerStepMean * float64(f.Steps); total > 0 {
			f.SolveShare = f.SolveMs * float64(f.Steps) / total
		}
	} else {
		f.Steps = len(r.rec.wall)
		f.MsPerStepMean, f.MsPerStepMedian, _ = r.rec.summary()
		f.Finite = r.spr.c.Finite()
		if r.err != nil {
			f.Error = r.err.Error()
		}
	}
	if f.MsPerStepMean > 0 {
		f.RealTime = 1e3 * r.dt / f.MsPerStepMean
	}
	return f
}

// BenchAll implements "drape bench --scene all" (and --scene A,B,…): each
// scene as it ships (adaptive where it adapts), o.Seconds of simulated
// time each (0: allSeconds), the runs taking turns of benchTurn simulated
// seconds. A run that fails stops there and keeps its figures; the error
// names every scene that failed.
func BenchAll(o BenchOptions) (BenchAllResult, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	secs := o.Seconds
	if secs == 0 {
		secs = allSeconds
	}
	res := BenchAllResult{Seconds: secs, GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU()}
	names := strings.Split(o.Scene, ",")
	if o.Scene == AllScenes {
		names = scene.SceneNames(assets.Scenes)
	}
	var runs []*allRun
	total := 0
	for _, name := range names {
		sc, err := scene.LoadScene(assets.Scenes, strings.TrimSpace(name))
		if err != nil {
			return res, err
		}
		r := &allRun{name: sc.Name, model: "fem"}
		if sc.IsSprings() {
			c, err := sc.BuildSprings()
			if err != nil {
				return res, fmt.Errorf("scene %s: %w", sc.Name, err)
			}
			r.model, r.dt, r.spr = "springs", c.Dt(), springsStepper{c}
		} else {
			s, err := sc.Build()
			if err != nil {
				return res, fmt.Errorf("scene %s: %w", sc.Name, err)
			}
			r.dt, r.fem = sc.Params.Dt, &benchSide{s: s, now: o.Now}
		}
		r.steps = max(1, int(math.Round(secs/r.dt)))
		total += r.steps
		runs = append(runs, r)
	}
	if o.Progress != nil {
		o.Progress.Update(0, total)
	}
	for t := benchTurn; ; t += benchTurn {
		busy := false
		for _, r := range runs {
			upto := min(r.steps, int(math.Round(t/r.dt)))
			for r.done() < upto && r.step(o.Now) {
			}
			busy = busy || r.done() < r.steps && !r.failed()
		}
		if o.Progress != nil {
			done := 0
			for _, r := range runs {
				done += r.done()
			}
			o.Progress.Update(done, total)
		}
		if !busy {
			break
		}
	}
	if o.Progress != nil {
		o.Progress.Done()
	}
	var errs []error
	for _, r := range runs {
		f := r.figures()
		res.Scenes = append(res.Scenes, f)
		if f.Error != "" {
			errs = append(errs, fmt.Errorf("scene %s: %s", f.Scene, f.Error))
		}
	}
	return res, errors.Join(errs...)
}

// WriteBenchAllTable prints BenchAll's result as a Markdown table.
func WriteBenchAllTable(w io.Writer, r BenchAllResult) {
	fmt.Fprintf(w, "%.3g s simulated per scene, GOMAXPROCS %d, %d CPUs\n\n", r.Seconds, r.GOMAXPROCS, r.NumCPU)
	fmt.Fprintln(w, "| scene | Δt ms | triangles, mean | ms/step mean | ms/step median | real-time factor | collision share | solve share | PCG iterations | finite |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, f := range r.Scenes {
		if f.Model == "springs" {
			fmt.Fprintf(w, "| %s (springs) | %.3g | – | %.2f | %.2f | %.2f | – | – | – | %v |\n",
				f.Scene, 1e3*f.Dt, f.MsPerStepMean, f.MsPerStepMedian, f.RealTime, f.Finite)
			continue
		}
		fmt.Fprintf(w, "| %s | %.3g | %.0f | %.2f | %.2f | %.2f | %.1f %% | %.1f %% | %.1f | %v |\n",
			f.Scene, 1e3*f.Dt, f.AvgTriangles, f.MsPerStepMean, f.MsPerStepMedian, f.RealTime,
			100*f.CollideShare, 100*f.SolveShare, f.PCGIterations, f.Finite)
	}
}
