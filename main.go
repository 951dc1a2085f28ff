// Command drape simulates cloth with the adaptive finite-element method of
// Bender & Deul 2012. main.go only parses flags and wires packages
// together: the headless commands (run, bench, compare) live in app/headless, the
// viewer and recording in app, the simulation under sim/, the built-in
// scenes in assets.
//
// Usage:
//
//	drape run   --scene NAME|FILE [--steps N] [--out DIR] [--every K] [--format obj|ply] [--stats FILE.json] [--cpuprofile FILE]
//	            [--cache pc2|mdd [--cache-mesh gmax|base|FILE.obj] [--fps F]]
//	drape record --scene NAME|FILE --seconds S --out FILE.mp4|DIR [--size WxH] [--fps F] [--look curvature|strain|fabric]
//	drape bench [--scene NAME|FILE|all|A,B,…] [--seconds S] [--perturb SEED] [--starts N] [--json FILE] [--plot DIR] [--cpuprofile FILE]
//	drape compare [--scene NAME|FILE] [--seconds S] [--sample S] [--hold S] [--json FILE] [--plot DIR]
//	drape [view] [--scene NAME|FILE] [--width W --height H] [--speed X] [--paused] [--max-fps N]
//	             [--frames N [--screenshot FILE.png]] [--state FILE.json [--state-every K]]
//	             [--record-dir DIR] [--record-fps F] [--record-size WxH] [--journal FILE]
//	drape monkey [--scene NAME|FILE|all] [--seconds S] [--seeds N] [--seed FIRST] [--check K] [--trace] [--wall D] [--cpuprofile FILE]
//	drape fabric-test [--material NAME|all] [--tests cantilever,cusick,tensile] [--meshes coarse,fine,adaptive] [--pictures DIR]
//	drape help
//
// Plain "drape" opens the viewer (app.Run) on the default scene.
//
// Exit codes: 0 success, 1 a runtime error (a bad scene, an unstable
// simulation, an unwritable file), 2 a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"

	"drape/app"
	"drape/app/headless"
	"drape/assets"
	"drape/render"
	"drape/sim/detail"
	"drape/sim/meshio"
	"drape/sim/monkey"
	"drape/sim/scene"
)

// GLFW, GL and ImGui must be called from the main OS thread; locking it
// here, before main runs, keeps the main goroutine on it (app.Run relies
// on that).
func init() { runtime.LockOSThread() }

func main() {
	capProcs()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// capProcs lowers GOMAXPROCS to the CPUs the process may run on
// (runtime.NumCPU, which follows taskset), when the environment set it
// higher; a lower setting stands. Ps beyond the CPUs only cost: the
// worker pool already takes no more goroutines than CPUs
// (sim/parallel), but every goroutine the pool or the viewer makes
// ready wakes an idle P, whose thread then spins on the cores the step
// needs. Measured on the 2-core machine (2026-12-01, `drape bench
// --scene curtain-adaptive,hanging --seconds 15 --starts 3`, four
// interleaved rounds, a noisy machine): GOMAXPROCS=8 took 1.42, 1.11,
// 1.60 and 0.98 times as long a step as GOMAXPROCS=2 on the adaptive
// curtain (issue 43 asks at most 1.1). Capped, GOMAXPROCS=8 runs as 2
// does.
func capProcs() {
	if n := runtime.NumCPU(); runtime.GOMAXPROCS(0) > n {
		runtime.GOMAXPROCS(n)
	}
}

// command is one subcommand: run parses its own flags from args and returns
// the process exit code.
type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) int
	// headless commands never touch GLFW or GL, so they run on an
	// unlocked main goroutine. Locked to its thread, the goroutine that
	// drives the simulation's worker pool pays a thread hand-off whenever
	// it waits or yields: "drape run" on the adaptive curtain took 8.9
	// instead of 6.5 ms per step.
	headless bool
}

// commands is the dispatch table. The viewer slots in here: replace the
// "view" entry's run (and make plain "drape" call it, see run).
var commands = []command{
	{"run", "--scene NAME|FILE [--steps N] [--out DIR] [--every K] [--format obj|ply] [--stats FILE.json] [--cache pc2|mdd [--cache-mesh gmax|base|FILE.obj] [--fps F]]", "simulate a scene without a window; with --cache, export it on a fixed mesh as a point cache", cmdRun, true},
	{"record", "--scene NAME|FILE --seconds S --out FILE.mp4|DIR [--size WxH] [--fps F] [--look curvature|strain|fabric]", "render a scene offscreen into a video or PNG frames", cmdRecord, false},
	{"bench", "[--scene NAME|FILE|all|A,B,…] [--seconds S] [--perturb SEED] [--starts N] [--json FILE] [--plot DIR] [--cpuprofile FILE]", "compare full resolution with adaptive (Bender & Deul §7), or a springs scene's no/uniform/dynamic subdivision; all: every built-in scene's step time in one table", cmdBench, true},
	{"compare", "[--scene NAME|FILE] [--seconds S] [--sample S] [--hold S] [--json FILE] [--plot DIR]", "coarse, fine, adaptive refining and coarsening (Mujahid et al. Table 1)", cmdCompare, true},
	{"monkey", "[--scene NAME|FILE|all] [--seconds S] [--seeds N] [--seed FIRST] [--check K] [--trace] [--wall D] [--cpuprofile FILE]", "play with a scene at random, as a person would, and check it never blows up or tangles", cmdMonkey, true},
	{"fabric-test", "[--material NAME|all] [--tests cantilever,cusick,tensile] [--meshes coarse,fine,adaptive] [--pictures DIR]", "run the textile lab's tests (Peirce cantilever, Cusick drape, strip tensile) on fabric presets", cmdFabricTest, true},
	{"view", "[--scene NAME|FILE] [--width W --height H] [--frames N --screenshot FILE.png] [--state FILE.json]", "open the interactive viewer (the default command)", cmdView, false},
}

func init() { // appended here because usage reads commands
	commands = append(commands, command{"help", "", "print this help", func(_ []string, stdout, _ io.Writer) int { usage(stdout); return exitOK }, true})
}

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// run executes the command line args (without the program name) and
// returns the exit code. Plain "drape" (or flags only, e.g. "drape
// --scene curtain") opens the viewer.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && !isHelpFlag(args[0])) {
		return cmdView(args, stdout, stderr)
	}
	if isHelpFlag(args[0]) {
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			if c.headless {
				runtime.UnlockOSThread()
			}
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "drape: unknown command %q; run 'drape help' for the list\n", args[0])
	return exitUsage
}

// usage prints the list of subcommands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "drape simulates cloth (Bender & Deul 2012, adaptive FEM).")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  drape %-6s %s", c.name, c.args), " "))
		fmt.Fprintf(w, "         %s\n", c.summary)
	}
	fmt.Fprintln(w, "\nRun 'drape COMMAND -h' for a command's flags.")
}

// newFlagSet returns a flag set that reports errors through parseFlags
// rather than printing them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("drape "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args into fs. It returns −1 to go on, or the exit code:
// 0 after printing the help for -h, 2 after a one-line error on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "Usage of %s:\n", fs.Name())
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage
	}
	return -1
}

// fail prints a one-line error for command name and returns code.
func fail(stderr io.Writer, name string, code int, err error) int {
	fmt.Fprintf(stderr, "drape %s: %s\n", name, strings.ReplaceAll(err.Error(), "\n", "; "))
	return code
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run")
	var o headless.RunOptions
	fs.StringVar(&o.Scene, "scene", "hanging", "built-in scene `NAME` or scene FILE.json")
	fs.IntVar(&o.Steps, "steps", 0, "number of steps `N`; 0 runs the scene's duration")
	fs.StringVar(&o.Out, "out", "", "write mesh frames to `DIR` (frame_000000.obj, …)")
	fs.IntVar(&o.Every, "every", 10, "with --out, write a frame every `K` steps (and step 0)")
	fs.StringVar(&o.Format, "format", "obj", "frame `FORMAT`: obj, or ply (with per-vertex mean curvature as colour and as property \"curvature\")")
	fs.StringVar(&o.Stats, "stats", "", "write run statistics as JSON to `FILE`")
	fs.IntVar(&o.Detail, "detail", 0, "with --out, write the physics-aware detail surface (Tsiknis ch. 3) at Loop `LEVEL` 1–3 instead of the simulation mesh; 0 writes the mesh")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof)")
	cache := fs.String("cache", "", "with --out, write one fixed mesh (cache.obj) and a point cache in `FORMAT` pc2 or mdd instead of frames (docs/export.md)")
	fs.StringVar(&o.CacheMesh, "cache-mesh", headless.CacheMeshGMax, "with --cache, the fixed `MESH`: gmax (the scene's mesh refined uniformly to g_max), base, or FILE.obj whose vt are material coordinates")
	fs.Float64Var(&o.FPS, "fps", 30, "with --cache, cache frames per simulated second `F`")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *cache != "" {
		var err error
		if o.Cache, err = meshio.ParseCacheFormat(*cache); err != nil {
			return fail(stderr, "run", exitUsage, fmt.Errorf("--cache must be pc2 or mdd, got %q", *cache))
		}
	}
	switch {
	case o.Cache != 0 && o.Out == "":
		return fail(stderr, "run", exitUsage, errors.New("--cache needs --out DIR"))
	case o.Cache != 0 && (set["every"] || set["format"] || set["detail"]):
		return fail(stderr, "run", exitUsage, errors.New("--cache writes a point cache at --fps instead of frames: leave out --every, --format and --detail"))
	case o.Cache == 0 && (set["fps"] || set["cache-mesh"]):
		return fail(stderr, "run", exitUsage, errors.New("--fps and --cache-mesh need --cache pc2|mdd"))
	case !(o.FPS > 0) || o.FPS > 1000:
		return fail(stderr, "run", exitUsage, fmt.Errorf("--fps must be in (0, 1000], got %v", o.FPS))
	case o.CacheMesh == "":
		return fail(stderr, "run", exitUsage, errors.New("--cache-mesh must be gmax, base or FILE.obj, got \"\""))
	}
	if o.Steps < 0 {
		return fail(stderr, "run", exitUsage, fmt.Errorf("--steps must be non-negative, got %d", o.Steps))
	}
	if o.Every < 1 {
		return fail(stderr, "run", exitUsage, fmt.Errorf("--every must be at least 1, got %d", o.Every))
	}
	if o.Format != "obj" && o.Format != "ply" {
		return fail(stderr, "run", exitUsage, fmt.Errorf("--format must be obj or ply, got %q", o.Format))
	}
	if o.Detail < 0 || o.Detail > detail.MaxLevel {
		return fail(stderr, "run", exitUsage, fmt.Errorf("--detail must be in [0, %d], got %d", detail.MaxLevel, o.Detail))
	}
	o.Progress = headless.NewProgress(stdout)
	o.Color = app.CurvatureColor
	stop, err := startProfile(*profile)
	if err != nil {
		return fail(stderr, "run", exitRuntime, err)
	}
	err = headless.Run(o, stdout)
	if err = errors.Join(err, stop()); err != nil {
		return fail(stderr, "run", exitRuntime, err)
	}
	return exitOK
}

// startProfile starts a CPU profile into path ("" for none) and returns
// the function that stops it and closes the file.
func startProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench")
	var o headless.BenchOptions
	fs.StringVar(&o.Scene, "scene", "curtain-adaptive", "built-in scene `NAME` or scene FILE.json with an \"adapt\" section, or a springs scene; all (or names separated by commas) runs every built-in scene (those) as it ships and prints one table of step times")
	fs.Float64Var(&o.Seconds, "seconds", 0, "simulated time `S` per run; 0 runs the scene's duration (15 s per scene with --scene all)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the bench to `FILE` (go tool pprof)")
	fs.Float64Var(&o.Sample, "sample", 0.1, "compare the two surfaces every `S` seconds of simulated time")
	fs.StringVar(&o.JSON, "json", "", "write the results as JSON to `FILE`")
	fs.StringVar(&o.Plot, "plot", "", "write triangles.png, pcg_iterations.png and ms_per_step.png into `DIR`")
	fs.Int64Var(&o.Perturb, "perturb", 0, "nudge every starting vertex by 0.1 µm, drawn from `SEED` (0: none), to see how far a chaotic run's figures move")
	fs.IntVar(&o.Starts, "starts", 1, "run `N` starts, --perturb SEED, SEED+1, …: one scene prints each figure's range and median over them, a list pools each scene's starts into its row")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if o.Starts < 1 {
		return fail(stderr, "bench", exitUsage, fmt.Errorf("--starts must be at least 1, got %d", o.Starts))
	}
	if o.Starts > 1 && o.Plot != "" {
		return fail(stderr, "bench", exitUsage, errors.New("--plot draws one run; leave it out with --starts N > 1"))
	}
	if !(o.Seconds >= 0) || math.IsInf(o.Seconds, 0) {
		return fail(stderr, "bench", exitUsage, fmt.Errorf("--seconds must be non-negative and finite, got %v", o.Seconds))
	}
	if !(o.Sample > 0) || math.IsInf(o.Sample, 0) {
		return fail(stderr, "bench", exitUsage, fmt.Errorf("--sample must be positive and finite, got %v", o.Sample))
	}
	o.Progress = headless.NewProgress(stdout)
	stop, err := startProfile(*profile)
	if err != nil {
		return fail(stderr, "bench", exitRuntime, err)
	}
	code := bench(o, stdout, stderr)
	if err := stop(); err != nil && code == exitOK {
		return fail(stderr, "bench", exitRuntime, err)
	}
	return code
}

// bench runs cmdBench's parsed options.
func bench(o headless.BenchOptions, stdout, stderr io.Writer) int {
	if headless.IsSceneList(o.Scene) {
		if o.Plot != "" {
			return fail(stderr, "bench", exitUsage, errors.New("--scene all and lists make no plots: leave out --plot"))
		}
		res, err := headless.BenchAll(o)
		headless.WriteBenchAllTable(stdout, res)
		if o.JSON != "" {
			err = errors.Join(err, headless.WriteJSONFile(o.JSON, res))
		}
		if err != nil {
			return fail(stderr, "bench", exitRuntime, err)
		}
		return exitOK
	}
	if o.Starts > 1 {
		ser, err := headless.BenchStarts(o, stdout)
		headless.WriteBenchSpread(stdout, ser)
		if o.JSON != "" && len(ser.Starts) > 0 {
			if jerr := headless.WriteJSONFile(o.JSON, ser); jerr != nil {
				err = errors.Join(err, jerr)
			}
		}
		if err != nil {
			return fail(stderr, "bench", exitRuntime, err)
		}
		return exitOK
	}
	res, err := headless.Bench(o, stdout)
	if res.Scene != "" {
		headless.WriteBenchTable(stdout, res)
		if o.JSON != "" {
			if jerr := headless.WriteJSONFile(o.JSON, res); jerr != nil {
				err = errors.Join(err, jerr)
			}
		}
		if o.Plot != "" {
			if perr := headless.WriteBenchPlots(o.Plot, res); perr != nil {
				err = errors.Join(err, perr)
			}
		}
	}
	if err != nil {
		return fail(stderr, "bench", exitRuntime, err)
	}
	return exitOK
}

func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare")
	var o headless.CompareOptions
	fs.StringVar(&o.Scene, "scene", "drape-box", "built-in scene `NAME` or scene FILE.json with an \"adapt\" section (even g_max)")
	fs.Float64Var(&o.Seconds, "seconds", 0, "simulated time `S` per run; 0 runs the scene's duration")
	fs.Float64Var(&o.Sample, "sample", 0.05, "compare with the fine run every `S` seconds of simulated time")
	fs.Float64Var(&o.Hold, "hold", -1, "fine_hold `S` of the coarsening run; negative keeps the scene's")
	fs.StringVar(&o.JSON, "json", "", "write the results as JSON to `FILE`")
	fs.StringVar(&o.Plot, "plot", "", "write vertices.png, shape_error.png and force_error.png into `DIR`")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if !(o.Seconds >= 0) || math.IsInf(o.Seconds, 0) {
		return fail(stderr, "compare", exitUsage, fmt.Errorf("--seconds must be non-negative and finite, got %v", o.Seconds))
	}
	if !(o.Sample > 0) || math.IsInf(o.Sample, 0) {
		return fail(stderr, "compare", exitUsage, fmt.Errorf("--sample must be positive and finite, got %v", o.Sample))
	}
	if math.IsNaN(o.Hold) || math.IsInf(o.Hold, 0) {
		return fail(stderr, "compare", exitUsage, fmt.Errorf("--hold must be finite, got %v", o.Hold))
	}
	o.Progress = headless.NewProgress(stdout)
	res, err := headless.Compare(o)
	if res.Scene != "" {
		headless.WriteCompareTable(stdout, res)
		if o.JSON != "" {
			if jerr := headless.WriteJSONFile(o.JSON, res); jerr != nil {
				err = errors.Join(err, jerr)
			}
		}
		if o.Plot != "" {
			if perr := headless.WriteComparePlots(o.Plot, res); perr != nil {
				err = errors.Join(err, perr)
			}
		}
	}
	if err != nil {
		return fail(stderr, "compare", exitRuntime, err)
	}
	return exitOK
}

// cmdRecord renders a scene offscreen into a video (app.Record).
func cmdRecord(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("record")
	o := app.RecordOptions{Scene: app.DefaultScene, FPS: 30, Stderr: stderr}
	fs.StringVar(&o.Scene, "scene", o.Scene, "built-in scene `NAME` or scene FILE.json")
	fs.Float64Var(&o.Seconds, "seconds", 0, "simulated time `S` to record; 0 records the scene's duration")
	fs.StringVar(&o.Out, "out", "", "output `FILE`.mp4 (H.264 through ffmpeg; a PNG sequence in FILE/ without ffmpeg) or DIR for PNG frames")
	size := fs.String("size", "1280x720", "frame size `WxH` in pixels (rounded down to even)")
	fs.Float64Var(&o.FPS, "fps", o.FPS, "frames per simulated second `F`")
	msaa := fs.Int("msaa", 4, "multisample anti-aliasing `SAMPLES`; 0 turns it off")
	fs.IntVar(&o.Detail, "detail", 0, "draw the physics-aware detail surface (Tsiknis ch. 3) at Loop `LEVEL` 1–3; 0 draws the simulation mesh")
	fs.BoolVar(&o.SideBySide, "side-by-side", false, "record two runs of the scene next to each other with their labels and plots, by default at full resolution and adaptive, both at each frame's time")
	fs.StringVar(&o.Pair, "pair", "full", "with --side-by-side, record `PAIR`: full (full resolution | adaptive), gmax (g_max − 1 | g_max) or criteria (criterion ×2 | criterion)")
	look := fs.String("look", "curvature", "draw the cloth as `LOOK`: curvature (mean curvature colours), strain (largest principal strain) or fabric (the scene's cloth_color, soft light, contact shadows; for videos)")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	var err error
	if o.Look, err = app.ParseLook(*look); err != nil {
		return fail(stderr, "record", exitUsage, fmt.Errorf("--look: %w", err))
	}
	if _, err := fmt.Sscanf(*size, "%dx%d", &o.Width, &o.Height); err != nil || o.Width < 2 || o.Height < 2 || *size != fmt.Sprintf("%dx%d", o.Width, o.Height) {
		return fail(stderr, "record", exitUsage, fmt.Errorf("--size must be WxH with W, H ≥ 2, got %q", *size))
	}
	switch {
	case o.Out == "":
		return fail(stderr, "record", exitUsage, fmt.Errorf("--out FILE.mp4|DIR is required"))
	case !(o.Seconds >= 0) || math.IsInf(o.Seconds, 0):
		return fail(stderr, "record", exitUsage, fmt.Errorf("--seconds must be non-negative and finite, got %v", o.Seconds))
	case !(o.FPS > 0) || o.FPS > 1000:
		return fail(stderr, "record", exitUsage, fmt.Errorf("--fps must be in (0, 1000], got %v", o.FPS))
	case o.Detail < 0 || o.Detail > detail.MaxLevel:
		return fail(stderr, "record", exitUsage, fmt.Errorf("--detail must be in [0, %d], got %d", detail.MaxLevel, o.Detail))
	case !slices.Contains(app.PairFlags(), o.Pair):
		return fail(stderr, "record", exitUsage, fmt.Errorf("--pair must be one of %s, got %q", strings.Join(app.PairFlags(), ", "), o.Pair))
	case o.SideBySide && o.Detail > 0:
		return fail(stderr, "record", exitUsage, fmt.Errorf("--side-by-side draws the simulation meshes: it takes no --detail"))
	}
	o.MSAA = *msaa
	if *msaa == 0 {
		o.MSAA = -1
	}
	if o.Seconds == 0 {
		sc, err := scene.LoadScene(assets.Scenes, o.Scene)
		if err != nil {
			return fail(stderr, "record", exitRuntime, err)
		}
		o.Seconds = sc.Duration
	}
	p := headless.NewProgressOf(stdout, "frame")
	o.Progress = p.Update
	res, err := app.Record(o)
	p.Done()
	if res.Frames > 0 {
		fmt.Fprintf(stdout, "%s: %d frames (%s) written to %s\n", o.Scene, res.Frames, res.Kind, res.Path)
	}
	if err != nil {
		if errors.Is(err, render.ErrNoDisplay) {
			fmt.Fprintf(stderr, "drape record: %v (a hidden window still needs an X display, e.g. Xvfb)\n", render.ErrNoDisplay)
			return exitRuntime
		}
		return fail(stderr, "record", exitRuntime, err)
	}
	return exitOK
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// cmdView opens the interactive viewer (package app). Without a display it
// says so in one line and exits 1.
func cmdView(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("view")
	o := app.DefaultOptions()
	fs.StringVar(&o.Scene, "scene", o.Scene, "built-in scene `NAME` or scene FILE.json")
	fs.IntVar(&o.Width, "width", o.Width, "window width `W` in screen units")
	fs.IntVar(&o.Height, "height", o.Height, "window height `H` in screen units")
	fs.Float64Var(&o.Speed, "speed", o.Speed, "real-time factor target `X`; 0 runs as fast as possible")
	fs.BoolVar(&o.Paused, "paused", false, "start with the simulation paused")
	fs.Float64Var(&o.PauseAt, "pause-at", 0, "pause the simulation once it reaches simulated time `T` seconds (0: never)")
	msaa := fs.Int("msaa", 4, "multisample anti-aliasing `SAMPLES`; 0 turns it off")
	fs.IntVar(&o.Frames, "frames", 0, "render `N` frames, then exit (0: run until the window is closed)")
	fs.StringVar(&o.Screenshot, "screenshot", "", "with --frames, save the final frame as PNG `FILE`")
	fs.StringVar(&o.State, "state", "", "at exit write the simulation and pin state as JSON to `FILE`")
	fs.IntVar(&o.StateEvery, "state-every", 0, "with --state, also write it every `K` frames")
	fs.IntVar(&o.MaxFPS, "max-fps", o.MaxFPS, "draw at most `N` frames per second; 0: no cap, with vsync off (the Stats panel shows the real rate)")
	fs.StringVar(&o.RecordDir, "record-dir", "", "save F9 recordings and F12 screenshots in `DIR` (default: the working directory)")
	fs.StringVar(&o.Journal, "journal", "", "write the simulation's journal (every command and the step it came after) to `FILE`, to replay the run without the viewer (docs/robustness.md)")
	fs.Float64Var(&o.RecordFPS, "record-fps", 30, "F9 recordings take `F` frames per simulated second")
	recSize := fs.String("record-size", "", "F9 recordings are `WxH` pixels, drawn offscreen without the panels (default: the window's size; the Record panel changes it)")
	fs.BoolVar(&o.SideBySide, "side-by-side", false, "open side by side: two runs of the scene, by default at full resolution and adaptive (the Scene panel turns it on and off)")
	fs.StringVar(&o.Pair, "pair", "full", "side by side shows `PAIR`: full (full resolution | adaptive), gmax (g_max − 1 | g_max) or criteria (criterion ×2 | criterion)")
	fs.BoolVar(&o.LockTime, "lock-time", false, "side by side: lock the two runs to the same simulated time (the faster one waits)")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	switch {
	case o.Width <= 0 || o.Height <= 0:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--width and --height must be positive, got %dx%d", o.Width, o.Height))
	case o.Frames < 0 || o.StateEvery < 0:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--frames and --state-every must be non-negative"))
	case o.Screenshot != "" && o.Frames == 0:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--screenshot needs --frames N"))
	case o.Speed < 0:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--speed must be non-negative, got %v", o.Speed))
	case o.MaxFPS < 0 || o.MaxFPS > 1000:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--max-fps must be a whole number of frames per second in [0, 1000] (0: no cap), got %d", o.MaxFPS))
	case !(o.PauseAt >= 0) || math.IsInf(o.PauseAt, 0):
		return fail(stderr, "view", exitUsage, fmt.Errorf("--pause-at must be a non-negative number of seconds, got %v", o.PauseAt))
	case !(o.RecordFPS > 0) || o.RecordFPS > 1000:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--record-fps must be in (0, 1000], got %v", o.RecordFPS))
	case !slices.Contains(app.PairFlags(), o.Pair):
		return fail(stderr, "view", exitUsage, fmt.Errorf("--pair must be one of %s, got %q", strings.Join(app.PairFlags(), ", "), o.Pair))
	case o.Journal != "" && o.SideBySide:
		return fail(stderr, "view", exitUsage, fmt.Errorf("--journal writes a single view's simulation; it cannot be used with --side-by-side"))
	}
	if *recSize != "" {
		if _, err := fmt.Sscanf(*recSize, "%dx%d", &o.RecordWidth, &o.RecordHeight); err != nil || o.RecordWidth < 2 || o.RecordHeight < 2 || *recSize != fmt.Sprintf("%dx%d", o.RecordWidth, o.RecordHeight) {
			return fail(stderr, "view", exitUsage, fmt.Errorf("--record-size must be WxH with W, H ≥ 2, got %q", *recSize))
		}
	}
	o.MSAA = *msaa
	if *msaa == 0 {
		o.MSAA = -1
	}
	if err := app.Run(o); err != nil {
		if errors.Is(err, render.ErrNoDisplay) {
			fmt.Fprintf(stderr, "drape view: %v\n", render.ErrNoDisplay)
			return exitRuntime
		}
		return fail(stderr, "view", exitRuntime, err)
	}
	return exitOK
}

func cmdMonkey(args []string, stdout, stderr io.Writer) (code int) {
	fs := newFlagSet("monkey")
	name := fs.String("scene", "all", "built-in scene `NAME`, scene FILE.json, or all (every built-in FEM scene)")
	seconds := fs.Float64("seconds", 60, "simulated time `S` per run")
	seeds := fs.Int("seeds", 20, "runs per scene, `N`")
	first := fs.Uint64("seed", 1, "the first run's seed; the others follow it")
	check := fs.Int("check", 10, "run the intersection oracle every `K` steps")
	trace := fs.Bool("trace", false, "print every action")
	wall := fs.Duration("wall", 0, "stop a run that has taken wall time `D` (e.g. 10m) and count it as failed: play made the scene crawl; 0: no limit")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the runs to `FILE` (go tool pprof)")
	if code := parseFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if *wall < 0 {
		return fail(stderr, "monkey", exitUsage, fmt.Errorf("--wall must not be negative, got %v", *wall))
	}
	if !(*seconds > 0) || math.IsInf(*seconds, 0) {
		return fail(stderr, "monkey", exitUsage, fmt.Errorf("--seconds must be positive and finite, got %v", *seconds))
	}
	if *seeds < 1 || *check < 1 {
		return fail(stderr, "monkey", exitUsage, fmt.Errorf("--seeds and --check must be at least 1, got %d and %d", *seeds, *check))
	}
	names := []string{*name}
	if *name == "all" {
		names = monkey.FEMScenes(assets.Scenes)
	}
	stop, err := startProfile(*profile)
	if err != nil {
		return fail(stderr, "monkey", exitRuntime, err)
	}
	defer func() { // a profile that cannot be written fails the command, as in run
		if err := stop(); err != nil {
			code = max(code, fail(stderr, "monkey", exitRuntime, err))
		}
	}()
	failed := 0
	for _, sc := range names {
		for k := range *seeds {
			cfg := monkey.Config{Scenes: assets.Scenes, Scene: sc, Seed: *first + uint64(k), Seconds: *seconds, CheckEvery: *check, Wall: *wall}
			if *trace {
				cfg.Trace = stdout
			}
			res, err := monkey.Run(cfg)
			if err != nil {
				return fail(stderr, "monkey", exitRuntime, err)
			}
			fmt.Fprintln(stdout, res)
			if !res.OK() {
				failed++
				for _, f := range res.Failures {
					fmt.Fprintf(stdout, "  FAIL %s (reproduce: drape monkey --scene %s --seed %d --seeds 1 --seconds %g)\n", f, sc, res.Seed, *seconds)
				}
			}
		}
	}
	if failed > 0 {
		return fail(stderr, "monkey", exitRuntime, fmt.Errorf("%d of %d runs failed", failed, len(names)**seeds))
	}
	fmt.Fprintf(stdout, "%d runs, no failure\n", len(names)**seeds)
	return exitOK
}
