package app

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestGUIMonkey plays with the real viewer window the way a new user does
// (issue 39): at random, reproducibly from a seed, with real X mouse and
// key events (xdotool) for a fixed wall time per scene. It drags pins
// (moving their targets), pulls the cloth, Shift-drags obstacles, orbits
// on empty space, pans with the right button, zooms with the wheel,
// pins and unpins with Ctrl+click, pauses and resumes (Space), single-
// steps while paused (S), resets (R, also in the middle of a drag) and
// flicks (a drag across most of the window in about 0.1 s). Drags are 5–
// 25 mouse moves over 0.15–0.75 s, up to 300 px. Where to press comes
// from the viewer's --state file: the window pixels of the pins and the
// obstacles, and near them (below a pin, over an obstacle) the cloth.
//
// It fails as soon as the state reports an error (the red banner: a step
// blew up), a non-finite state, an OpenGL error, or the viewer exiting;
// and at the end, after everything is released and the simulation has
// run without input for monkeySettle, if the count of intersecting cloth
// triangle pairs (--state's tangled) is not 0, or the final screenshot
// (after a fit view) shows the red banner or hardly any cloth. On a failure it prints the seed, the scene, the
// last actions and the state, and keeps the state file, the action log
// and a screenshot in DRAPE_TEST_OUT (or the test's temporary directory,
// named in the log).
//
// Environment (all optional):
//
//	DRAPE_MONKEY_SECONDS  wall seconds of play per scene (default 60)
//	DRAPE_MONKEY_SCENES   comma-separated scene names or files
//	                      (default hanging)
//	DRAPE_MONKEY_SEED     the seed (default 39); each scene's stream is
//	                      drawn from it and the scene's name
//	DRAPE_TEST_OUT        keep the logs, states and screenshots here
//
// The long run (about 22 minutes; go test's default 10-minute
// timeout must be raised):
//
//	DRAPE_MONKEY_SECONDS=300 DRAPE_MONKEY_SCENES=hanging,tablecloth,sphere-adaptive,curtain-adaptive \
//	  xvfb-run -a -s "-screen 0 1280x800x24 -noreset" go test -count=1 -timeout 40m -run '^TestGUIMonkey$' -v ./app/
//
// The actions are a function of the seed and of what the state shows
// (which pins are on screen, whether the simulation is paused), and the
// simulation runs in real time beside them, so a run is not repeated to
// the bit; the log gives every action with the simulated time it met.
func TestGUIMonkey(t *testing.T) {
	needDisplay(t)
	needXdotool(t)
	seconds := 60.0
	if s := os.Getenv("DRAPE_MONKEY_SECONDS"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) {
			t.Fatalf("DRAPE_MONKEY_SECONDS=%q: want a positive number of seconds", s)
		}
		seconds = v
	}
	// CI plays the hanging sheet. sphere-adaptive, the next scene to
	// add, failed with seed 39 when untangling left a pin's faces to the
	// pin: a Ctrl+click pinned vertices of faces crossing the sheet, and
	// 35 crossing pairs stayed. Since the pin's faces are searched
	// (cloth/untangle.go), seed 39 × 60 s passes (tangled 0 at the end,
	// 16.7 steps/s at the slowest, 2026-11-30); it is not in CI, whose
	// runs the wall clock paces differently each time.
	scenes := []string{"hanging"}
	if s := os.Getenv("DRAPE_MONKEY_SCENES"); s != "" {
		scenes = nil
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				scenes = append(scenes, f)
			}
		}
	}
	seed := uint64(39)
	if s := os.Getenv("DRAPE_MONKEY_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("DRAPE_MONKEY_SEED=%q: want an unsigned integer", s)
		}
		seed = v
	}
	dir := outDir(t)
	for _, sc := range scenes {
		name := strings.TrimSuffix(filepath.Base(sc), ".json")
		t.Run(name, func(t *testing.T) {
			m := newGUIMonkey(t, dir, sc, name, seed, time.Duration(seconds*float64(time.Second)))
			m.run()
		})
	}
}

// monkeyClothPixels is the fewest cloth pixels (clothPixels) the final
// screenshots, taken after a fit view, may show. clothPixels counts only
// the light or saturated parts of the cloth (a fold in shade, or a sheet
// the monkey's C key coloured with a muted colour map, is not counted):
// measured 3277 for a hanging sheet that fills a third of the view (seed
// 53), 75 823 and 84 174 for others, but 294 for a sheet filling the view
// in the mean-curvature map's greys (seed 39); hidden behind the floor,
// 32 (the pins' markers are left out).
const monkeyClothPixels = 100

// monkeySettle is the quiet time at the end: no input, the simulation
// running, before tangled must be 0.
const monkeySettle = 2 * time.Second

// guiMonkey is one scene's run.
type guiMonkey struct {
	t          *testing.T
	v          *liveViewer
	rng        *rand.Rand
	win        string
	scene      string
	name       string
	seed       uint64
	dir        string
	journal    string // the viewer's --journal
	play       time.Duration
	start      time.Time
	logf       *os.File
	recent     []string // the last actions, for a failure's report
	n          int      // actions so far
	st         State    // the latest state read
	frames     int      // frames of the state the last action was chosen on
	zoom       int      // net wheel notches towards the scene
	lost       int      // actions in a row with nothing to grab on screen
	maxTangled int
	tangledAt  string // when maxTangled was seen
	msgs       int    // messages already logged
	sidebar    string // where the sidebar's "save file" box was drawn, to log scrolling
	// The current and the longest stretch of play with tangled > 0 (a
	// reset ends one), and the slowest stepping seen while running.
	tangledFrom, longestFrom, longestTo State
	tangledWall, longestWall            time.Duration
	inTangle                            bool
	slowest                             float64
	slowestAt                           string
	lastPaused                          time.Time
	// seen are window points where the cloth was seen lately: where a
	// press took hold of a vertex and where a dragged vertex was let go
	// (it followed the mouse), as a user remembers where the cloth is.
	// Moving the camera or resetting forgets them.
	seen  [][2]float64
	count map[string]int
}

func newGUIMonkey(t *testing.T, dir, scene, name string, seed uint64, play time.Duration) *guiMonkey {
	h := fnv.New64a()
	h.Write([]byte(scene))
	m := &guiMonkey{
		t: t, scene: scene, name: name, seed: seed, dir: dir, play: play,
		rng:   rand.New(rand.NewPCG(seed, h.Sum64())),
		count: map[string]int{},
	}
	logPath := filepath.Join(dir, "monkey-"+name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m.logf = f
	t.Logf("scene %s, seed %d, %v of play; action log %s", scene, seed, play, logPath)
	return m
}

// logAction records one line in the log file and the recent ring.
func (m *guiMonkey) logAction(format string, args ...any) {
	line := fmt.Sprintf("%7.2fs #%-4d sim %6.3fs steps %6d tris %6d tangled %3d %s| ", time.Since(m.start).Seconds(), m.n,
		m.st.Time, m.st.Steps, m.st.Triangles, m.st.Tangled, map[bool]string{true: "paused ", false: ""}[m.st.Paused]) + fmt.Sprintf(format, args...)
	fmt.Fprintln(m.logf, line)
	m.recent = append(m.recent, line)
	if len(m.recent) > 25 {
		m.recent = m.recent[1:]
	}
}

// fail reports a failure with everything needed to reproduce it: seed,
// scene, the last actions and the state (kept in the output directory),
// and a screenshot when the viewer still takes one.
func (m *guiMonkey) fail(format string, args ...any) {
	m.t.Helper()
	what := fmt.Sprintf(format, args...)
	m.logAction("FAIL: %s", what)
	keep := filepath.Join(m.dir, "monkey-"+m.name+"-fail.json")
	if data, err := os.ReadFile(m.v.state); err == nil {
		os.WriteFile(keep, data, 0o644)
	}
	shot := ""
	select {
	case <-m.v.exited:
	default:
		shot = m.screenshot(10 * time.Second)
	}
	m.t.Fatalf("monkey failed on scene %s, seed %d (DRAPE_MONKEY_SEED=%d DRAPE_MONKEY_SCENES=%s), %.1f s into play: %s\n"+
		"state kept in %s, screenshot %q, full log %s\n"+
		"the simulation's journal %s replays the run without the viewer: DRAPE_REPLAY=%s go test -count=1 -run '^TestReplay$' -v ./app/\n"+
		"last actions:\n%s\nviewer stderr:\n%s",
		m.scene, m.seed, m.seed, m.scene, time.Since(m.start).Seconds(), what, keep, shot, m.logf.Name(), m.journal, m.journal,
		strings.Join(m.recent, "\n"), m.v.stderr.String())
}

// check fails on a state that shows an error or a blow-up.
func (m *guiMonkey) check(s State) {
	m.t.Helper()
	if s.Tangled > m.maxTangled {
		m.maxTangled, m.tangledAt = s.Tangled, fmt.Sprintf("%.1f s of play, sim %.3f s", time.Since(m.start).Seconds(), s.Time)
	}
	if m.inTangle && (s.Tangled <= 0 || s.Steps < m.tangledFrom.Steps) {
		m.inTangle = false
	}
	if s.Tangled > 0 {
		if !m.inTangle {
			m.inTangle, m.tangledFrom, m.tangledWall = true, s, time.Since(m.start)
		}
		if s.Time-m.tangledFrom.Time >= m.longestTo.Time-m.longestFrom.Time {
			m.longestFrom, m.longestTo, m.longestWall = m.tangledFrom, s, m.tangledWall
		}
	}
	// steps_per_s is smoothed over wall time, paused time included:
	// look at it only 3 s after the last pause.
	if s.Paused {
		m.lastPaused = time.Now()
	}
	if !s.Paused && time.Since(m.lastPaused) > 3*time.Second && s.Steps > 100 && s.StepsPerS > 0 && (m.slowest == 0 || s.StepsPerS < m.slowest) {
		m.slowest = s.StepsPerS
		m.slowestAt = fmt.Sprintf("%.1f s of play, sim %.3f s, %d triangles, tangled %d", time.Since(m.start).Seconds(), s.Time, s.Triangles, s.Tangled)
	}
	for ; m.msgs < len(s.Messages); m.msgs++ {
		m.logAction("message: %s", s.Messages[m.msgs])
	}
	// None of the actions means to scroll the sidebar: say when it does.
	sb := "scrolled away"
	if r, ok := s.Widgets["save file"]; ok {
		sb = fmt.Sprintf("at y %.0f", r[1])
	}
	if m.sidebar != "" && sb != m.sidebar {
		m.logAction("the sidebar's save file box moved from %s to %s", m.sidebar, sb)
	}
	m.sidebar = sb
	switch {
	case s.Error != "":
		m.st = s
		m.fail("the viewer shows an error (red banner): %q", s.Error)
	case !s.Finite:
		m.st = s
		m.fail("the state is not finite")
	case s.GLErrors != 0:
		m.st = s
		m.fail("%d OpenGL errors", s.GLErrors)
	}
}

// read returns the latest state, failing if the viewer exited.
func (m *guiMonkey) read() (State, bool) {
	select {
	case <-m.v.exited:
		m.fail("the viewer exited: %v", m.v.err)
	default:
	}
	s, err := readState(m.v.state)
	if err != nil {
		return s, false
	}
	m.check(s)
	return s, true
}

// fresh waits for a state drawn at least two frames after the last
// one an action was chosen on, so that pixels reflect the latest camera
// and cloth; a paused, idle viewer stops drawing, so the mouse is
// wiggled in the 3D view when none comes.
func (m *guiMonkey) fresh() State {
	m.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	wiggle := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if s, ok := m.read(); ok && s.Frames >= m.frames+2 {
			m.st, m.frames = s, s.Frames
			return s
		}
		if time.Now().After(wiggle) {
			xdotool(m.t, "mousemove", "--window", m.win, strconv.Itoa(700+m.rng.IntN(5)), "400")
			wiggle = time.Now().Add(time.Second)
		}
		time.Sleep(30 * time.Millisecond)
	}
	m.fail("no new frame for 60 s")
	return State{}
}

// grab is what a drag took hold of, as --state showed during it.
type grab struct {
	vertex   int32 // dragged vertex, −1 for none
	obstacle int   // dragged obstacle, −1 for none
}

// xdo runs one xdotool command chain (a whole gesture) and, while it
// runs, reads the state every 40 ms: it checks each and returns what was
// grabbed.
func (m *guiMonkey) xdo(args ...string) grab {
	m.t.Helper()
	g := grab{vertex: -1, obstacle: -1}
	cmd := exec.Command("xdotool", args...)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		m.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				m.t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
			}
			return g
		case <-time.After(40 * time.Millisecond):
		}
		if s, ok := m.read(); ok {
			if s.Dragged >= 0 && g.vertex < 0 {
				g.vertex = s.Dragged
			}
			if s.DraggedObstacle >= 0 && g.obstacle < 0 {
				g.obstacle = s.DraggedObstacle
			}
		}
	}
}

// view3D is the 3D view between the panels (at content scale 1).
func (m *guiMonkey) view3D() (x0, y0, x1, y1 float64) {
	w, h := float64(m.st.Window[0]), float64(m.st.Window[1])
	if w == 0 {
		w, h = 1280, 800
	}
	return (sideW + 2*margin) + 8, 8, w - (statsW + 2*margin) - 8, h - 8
}

func (m *guiMonkey) in3D(x, y float64) bool {
	x0, y0, x1, y1 := m.view3D()
	return x >= x0 && x <= x1 && y >= y0 && y <= y1
}

func (m *guiMonkey) uniform(a, b float64) float64 { return a + (b-a)*m.rng.Float64() }

// pins and obstacles return those drawn inside the 3D view (obstacles:
// not planes, which cannot be dragged).
func (m *guiMonkey) pins() []PinState {
	var ps []PinState
	for _, p := range m.st.Pins {
		if p.OnScreen && m.in3D(float64(p.Pixel[0]), float64(p.Pixel[1])) {
			ps = append(ps, p)
		}
	}
	return ps
}

func (m *guiMonkey) obstacles() []ObstacleState {
	var obs []ObstacleState
	for _, o := range m.st.Obstacles {
		if o.Kind != "plane" && o.OnScreen && m.in3D(float64(o.Pixel[0]), float64(o.Pixel[1])) {
			obs = append(obs, o)
		}
	}
	return obs
}

// clothPoint guesses a window point on the cloth: below a pin or
// between two, over an obstacle (the cloth drapes it), else the middle of
// the view.
func (m *guiMonkey) clothPoint() (float64, float64) {
	ps, obs := m.pins(), m.obstacles()
	x0, y0, x1, y1 := m.view3D()
	if len(m.seen) > 0 && m.rng.IntN(2) == 0 {
		p := m.seen[m.rng.IntN(len(m.seen))]
		if x, y := p[0]+m.uniform(-25, 25), p[1]+m.uniform(-25, 25); m.in3D(x, y) {
			return x, y
		}
	}
	for range 10 {
		var x, y float64
		switch r := m.rng.IntN(3); {
		case r == 0 && len(ps) >= 2:
			// On the line between two pins (an edge held by both, seen
			// edge-on as often as not) or below it.
			i := m.rng.IntN(len(ps))
			j := (i + 1 + m.rng.IntN(len(ps)-1)) % len(ps)
			a, b := ps[i], ps[j]
			f := m.uniform(0.1, 0.9)
			down := m.uniform(-6, 6)
			if m.rng.IntN(2) == 0 {
				down = m.uniform(20, 250)
			}
			x = float64(a.Pixel[0]) + f*float64(b.Pixel[0]-a.Pixel[0])
			y = float64(a.Pixel[1]) + f*float64(b.Pixel[1]-a.Pixel[1]) + down
		case r <= 1 && len(ps) > 0:
			p := ps[m.rng.IntN(len(ps))]
			x, y = float64(p.Pixel[0])+m.uniform(-60, 60), float64(p.Pixel[1])+m.uniform(15, 250)
		case len(obs) > 0:
			o := obs[m.rng.IntN(len(obs))]
			x, y = float64(o.Pixel[0])+m.uniform(-100, 100), float64(o.Pixel[1])+m.uniform(-100, 40)
		default:
			x, y = m.uniform(x0+0.3*(x1-x0), x1-0.3*(x1-x0)), m.uniform(y0+0.3*(y1-y0), y1-0.3*(y1-y0))
		}
		if m.in3D(x, y) {
			return x, y
		}
	}
	return (x0 + x1) / 2, (y0 + y1) / 2
}

// emptyPoint is a point of the 3D view away from pins and obstacles
// (it may still hit the cloth: the viewer decides).
func (m *guiMonkey) emptyPoint() (float64, float64) {
	x0, y0, x1, y1 := m.view3D()
	var x, y float64
	for range 20 {
		x, y = m.uniform(x0, x1), m.uniform(y0, y1)
		far := true
		for _, p := range m.pins() {
			far = far && math.Hypot(x-float64(p.Pixel[0]), y-float64(p.Pixel[1])) > 80
		}
		for _, o := range m.obstacles() {
			far = far && math.Hypot(x-float64(o.Pixel[0]), y-float64(o.Pixel[1])) > 150
		}
		if far {
			break
		}
	}
	return x, y
}

// pixel writes a window coordinate for xdotool, rounded.
func pixel(v float64) string { return strconv.Itoa(int(math.Round(v))) }

// dragArgs returns the xdotool chain of a drag with button from (x, y):
// press (with modifier mod, "" for none), moves, release. A flick goes
// across most of the window in about 0.1 s; otherwise 5–25 moves over
// 0.15–0.75 s, up to 300 px. With reset, R is pressed half way.
func (m *guiMonkey) dragArgs(button string, mod string, x, y float64, flick, reset bool) (args []string, desc string, ex, ey float64) {
	w, h := float64(m.st.Window[0]), float64(m.st.Window[1])
	if w == 0 {
		w, h = 1280, 800
	}
	var dx, dy, dur float64
	var n int
	if flick {
		dx = m.uniform(0.6, 0.85) * w
		if x > w/2 {
			dx = -dx
		}
		dy = m.uniform(-0.3, 0.3) * h
		n, dur = 6+m.rng.IntN(5), m.uniform(0.08, 0.12)
	} else {
		a, r := m.uniform(0, 2*math.Pi), m.uniform(15, 300)
		dx, dy = r*math.Cos(a), r*math.Sin(a)
		n, dur = 5+m.rng.IntN(21), m.uniform(0.15, 0.75)
	}
	ex = math.Max(2, math.Min(w-3, x+dx))
	ey = math.Max(2, math.Min(h-3, y+dy))
	args = []string{"mousemove", "--window", m.win, pixel(x), pixel(y), "sleep", fmt.Sprintf("%.3f", m.uniform(0.03, 0.1))}
	if mod != "" {
		args = append(args, "keydown", mod)
	}
	args = append(args, "mousedown", button)
	step := fmt.Sprintf("%.3f", dur/float64(n))
	half := n / 2
	for i := 1; i <= n; i++ {
		f := float64(i) / float64(n)
		jx, jy := 0.0, 0.0
		if i < n {
			jx, jy = m.uniform(-2, 2), m.uniform(-2, 2)
		}
		args = append(args, "sleep", step, "mousemove", "--window", m.win, pixel(x+f*(ex-x)+jx), pixel(y+f*(ey-y)+jy))
		if reset && i == half {
			args = append(args, "key", "--window", m.win, "r")
		}
	}
	hold := 0.0
	if !flick && m.rng.IntN(4) == 0 {
		hold = m.uniform(0.1, 0.8) // hold still before letting go
		args = append(args, "sleep", fmt.Sprintf("%.3f", hold))
	}
	args = append(args, "mouseup", button)
	if mod != "" {
		args = append(args, "keyup", mod)
	}
	desc = fmt.Sprintf("from (%.0f,%.0f) to (%.0f,%.0f) in %d moves over %.2f s", x, y, ex, ey, n, dur)
	if hold > 0 {
		desc += fmt.Sprintf(", held %.2f s", hold)
	}
	if reset {
		desc += ", R half way"
	}
	return args, desc, ex, ey
}

// what names what a drag grabbed.
func (m *guiMonkey) what(g grab, s State) string {
	switch {
	case g.obstacle >= 0:
		name := "?"
		if g.obstacle < len(s.Obstacles) {
			name = s.Obstacles[g.obstacle].Name
		}
		return fmt.Sprintf("grabbed obstacle %d %q", g.obstacle, name)
	case g.vertex >= 0:
		for _, p := range s.Pins {
			if p.ID == g.vertex {
				return fmt.Sprintf("grabbed pin %d", g.vertex)
			}
		}
		return fmt.Sprintf("grabbed vertex %d", g.vertex)
	}
	return "grabbed nothing (camera)"
}

// drag performs one drag of kind (for the log and the counts) on what
// on names (for the log).
func (m *guiMonkey) drag(kind, on, button, mod string, x, y float64) {
	flick := m.rng.IntN(8) == 0
	reset := m.rng.IntN(40) == 0
	args, desc, ex, ey := m.dragArgs(button, mod, x, y, flick, reset)
	if flick {
		kind += " flick"
	}
	before := m.st
	g := m.xdo(args...)
	res := m.what(g, before)
	m.logAction("%s %s%s: %s", kind, on, desc, res)
	m.count[kind]++
	switch {
	case g.obstacle >= 0:
		m.count["grabbed obstacle"]++
	case strings.HasPrefix(res, "grabbed pin"):
		m.count["grabbed pin"]++
	case g.vertex >= 0:
		m.count["grabbed vertex"]++
	}
	if reset {
		m.count["reset mid-drag"]++
	}
	switch {
	case reset || (g.vertex < 0 && g.obstacle < 0):
		m.seen = nil // the camera moved, or the scene was reset
	case g.vertex >= 0:
		m.remember(x, y)
		if m.in3D(ex, ey) {
			m.remember(ex, ey)
		}
	}
}

// remember adds a point where the cloth was seen (see seen).
func (m *guiMonkey) remember(x, y float64) {
	m.seen = append(m.seen, [2]float64{x, y})
	if len(m.seen) > 6 {
		m.seen = m.seen[1:]
	}
}

// turnView orbits the camera by a drag from (x, y), a point of the 3D
// view away from the fitted cloth, 240 px right and 160 px up: about a
// quarter turn round the vertical and a tilt.
func (m *guiMonkey) turnView(x, y float64) {
	args := []string{"mousemove", "--window", m.win, pixel(x), pixel(y), "sleep", "0.05", "mousedown", "1"}
	for i := 1; i <= 8; i++ {
		f := float64(i) / 8
		args = append(args, "sleep", "0.03", "mousemove", "--window", m.win, pixel(x+240*f), pixel(y-160*f))
	}
	m.xdo(append(args, "sleep", "0.05", "mouseup", "1")...)
	m.logAction("orbit drag from %.0f,%.0f (turn for a second look)", x, y)
}

func (m *guiMonkey) key(k, why string) {
	m.xdo("key", "--window", m.win, k)
	m.logAction("key %s%s", k, why)
	m.count["key "+k]++
}

// act chooses and performs one action on the fresh state m.st.
func (m *guiMonkey) act() {
	ps, obs := m.pins(), m.obstacles()
	if len(ps) == 0 && len(obs) == 0 {
		m.lost++
	} else {
		m.lost = 0
	}
	switch {
	case m.lost >= 4:
		// Nothing to take hold of in view: a user looks for the cloth.
		m.lost = 0
		m.key("f", " (fit view: nothing to grab on screen)")
		m.zoom, m.seen = 0, nil
		return
	case m.st.Paused:
		switch r := m.rng.IntN(10); {
		case r < 3:
			m.key("space", " (resume; the state showed it paused)")
			return
		case r < 6:
			n := 1 + m.rng.IntN(4)
			for range n {
				m.key("s", "")
				time.Sleep(time.Duration(m.uniform(50, 250)) * time.Millisecond)
			}
			return
		}
	}
	r := m.rng.IntN(100)
	switch {
	case r < 20 && len(ps) > 0:
		p := ps[m.rng.IntN(len(ps))]
		m.drag("pin drag", fmt.Sprintf("pin %d ", p.ID), "1", "", float64(p.Pixel[0])+m.uniform(-2, 2), float64(p.Pixel[1])+m.uniform(-2, 2))
	case r < 44:
		x, y := m.clothPoint()
		m.drag("cloth drag", "", "1", "", x, y)
	case r < 54 && len(obs) > 0:
		o := obs[m.rng.IntN(len(obs))]
		m.drag("shift drag", fmt.Sprintf("obstacle %q ", o.Name), "1", "shift", float64(o.Pixel[0])+m.uniform(-10, 10), float64(o.Pixel[1])+m.uniform(-10, 10))
	case r < 62:
		x, y := m.emptyPoint()
		m.drag("orbit drag", "", "1", "", x, y)
	case r < 69:
		x, y := m.emptyPoint()
		m.drag("pan drag", "", "3", "", x, y)
	case r < 77:
		x, y := m.emptyPoint()
		n := 1 + m.rng.IntN(4)
		in := m.rng.IntN(2) == 0
		if m.zoom >= 6 {
			in = false
		} else if m.zoom <= -6 {
			in = true
		}
		button, dir := "5", "out"
		if in {
			button, dir = "4", "in"
			m.zoom += n
		} else {
			m.zoom -= n
		}
		m.xdo("mousemove", "--window", m.win, strconv.Itoa(int(x)), strconv.Itoa(int(y)), "sleep", "0.05",
			"click", "--repeat", strconv.Itoa(n), "--delay", "60", button)
		m.logAction("wheel %d notches %s at (%.0f,%.0f)", n, dir, x, y)
		m.seen = nil
		m.count["wheel"]++
	case r < 85:
		// Ctrl+click: mostly on the cloth (pin it there), sometimes on a
		// pin (unpin it).
		x, y := m.clothPoint()
		kind := "ctrl+click (cloth)"
		if len(ps) > 0 && m.rng.IntN(3) == 0 {
			p := ps[m.rng.IntN(len(ps))]
			x, y, kind = float64(p.Pixel[0]), float64(p.Pixel[1]), fmt.Sprintf("ctrl+click (pin %d)", p.ID)
		}
		m.xdo("mousemove", "--window", m.win, strconv.Itoa(int(x)), strconv.Itoa(int(y)), "sleep", "0.08",
			"keydown", "ctrl", "click", "1", "keyup", "ctrl")
		m.logAction("%s at (%.0f,%.0f): pins %d", kind, x, y, len(m.st.Pins))
		m.count["ctrl+click"]++
	case r < 92:
		m.key("space", " (pause; the state showed it running)")
	case r < 93:
		m.key("r", " (reset)")
		m.zoom, m.seen = 0, nil
	case r < 95:
		// The view wandered off (under the ground, far away): fit it.
		m.key("f", " (fit view)")
		m.zoom, m.seen = 0, nil
	default:
		x, y := m.clothPoint()
		m.drag("cloth drag", "", "1", "", x, y)
	}
}

// screenshot presses F12 and returns the file the viewer saved, "" if
// none came within wait.
func (m *guiMonkey) screenshot(wait time.Duration) string {
	prev := ""
	if s, err := readState(m.v.state); err == nil {
		prev = lastShot(s)
	}
	exec.Command("xdotool", "key", "--window", m.win, "F12").Run()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if s, err := readState(m.v.state); err == nil && lastShot(s) != prev {
			return lastShot(s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return ""
}

// run starts the viewer, plays, settles and checks.
func (m *guiMonkey) run() {
	t := m.t
	state := filepath.Join(m.dir, "monkey-"+m.name+".json")
	m.journal = filepath.Join(m.dir, "monkey-"+m.name+".journal")
	m.v = startViewer(t, state, "--scene", m.scene, "--msaa", "0", "--state-every", "1", "--record-dir", m.dir, "--journal", m.journal)
	st := m.v.poll("the first state", func(s State) bool { return s.Frames >= 3 })
	m.st = st
	m.win = strings.Fields(xdotool(t, "search", "--sync", "--onlyvisible", "--name", "^drape"))[0]
	xdotool(t, "windowfocus", "--sync", m.win)
	t.Logf("start: %d vertices, %d triangles, %d pins, %d obstacles", st.Vertices, st.Triangles, len(st.Pins), len(st.Obstacles))

	m.start = time.Now()
	maxTris := 0
	for time.Since(m.start) < m.play {
		m.fresh()
		maxTris = max(maxTris, m.st.Triangles)
		m.n++
		m.act()
		// A user's pause between gestures.
		pause := m.uniform(0, 0.35)
		if m.rng.IntN(10) == 0 {
			pause = m.uniform(0.5, 1.5)
		}
		time.Sleep(time.Duration(pause * float64(time.Second)))
	}
	played := time.Since(m.start)

	// Release everything, run, and let it settle with no input.
	xdotool(t, "mouseup", "1")
	xdotool(t, "mouseup", "3")
	xdotool(t, "keyup", "shift", "keyup", "ctrl")
	m.fresh()
	if m.st.Paused {
		m.key("space", " (resume for the settling)")
	}
	m.logAction("released everything; settling for %v", monkeySettle)
	quiet := time.Now()
	for time.Since(quiet) < monkeySettle {
		m.read()
		time.Sleep(100 * time.Millisecond)
	}
	// tangled is recounted about once a wall second while the simulation
	// steps: wait for a count taken after the settling time.
	at := m.fresh()
	var end State
	var last State // the last state read, for the failure message
	for {
		s, ok := m.read()
		if ok {
			last = s
		}
		if ok && s.Steps >= at.Steps+5 && time.Since(quiet) >= monkeySettle+1200*time.Millisecond {
			end = s
			break
		}
		if ok && s.Paused {
			m.fail("paused during the settling: %q", s.Error)
		}
		if time.Since(quiet) > monkeySettle+60*time.Second {
			m.fail("the simulation did not step after the settling (step in progress for %.1f s; 0: the loop is waiting, not stepping)", last.StepBusy)
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.st = end
	m.logAction("settled")
	t.Logf("played %.1f s: %d actions, %v", played.Seconds(), m.n, m.count)
	t.Logf("end: sim %.2f s, %d steps since the last reset, %d vertices, %d triangles (at most %d seen), %d pins, tangled %d",
		end.Time, end.Steps, end.Vertices, end.Triangles, maxTris, len(end.Pins), end.Tangled)
	if m.maxTangled > 0 {
		t.Logf("during play up to %d intersecting triangle pairs (first at %s); the longest stretch with some: sim %.3f–%.3f s (from %.1f s of play), up to %d pairs at its end; see the log",
			m.maxTangled, m.tangledAt, m.longestFrom.Time, m.longestTo.Time, m.longestWall.Seconds(), m.longestTo.Tangled)
	}
	t.Logf("slowest stepping while running: %.1f steps/s (at %s)", m.slowest, m.slowestAt)
	if end.Tangled != 0 {
		// Say whether it untangles given more time, then fail.
		var later []string
		for range 5 {
			time.Sleep(time.Second)
			if s, ok := m.read(); ok {
				later = append(later, fmt.Sprintf("sim %.2f s: %d", s.Time, s.Tangled))
			}
		}
		m.fail("%d intersecting cloth triangle pairs after %v without input (then, each wall second: %s)",
			end.Tangled, monkeySettle, strings.Join(later, ", "))
	}
	if m.count["grabbed pin"]+m.count["grabbed vertex"]+m.count["grabbed obstacle"] == 0 {
		m.fail("no drag took hold of a pin, the cloth or an obstacle: the monkey only moved the camera")
	}

	// Look at the cloth (F fits the view to it, keeping the direction)
	// for the screenshot.
	m.key("f", " (fit view for the screenshot)")
	m.fresh()
	shot := m.screenshot(30 * time.Second)
	if shot == "" {
		m.fail("F12 saved no screenshot")
	}
	rows, red := bannerRows(readPNG(t, shot))
	t.Logf("final screenshot %s (%d banner-red rows, %d such pixels at the top)", shot, rows, red)
	if rows >= bannerMinRows {
		m.fail("the final screenshot shows the red error banner (%d rows mostly dark red, %d such pixels)", rows, red)
	}
	// After the fit the cloth fills much of the view; seed 52 ended with
	// the camera under the ground and only a pin's marker on screen. But
	// a sheet seen edge-on is a line, and one in a muted colour map counts
	// few pixels (seed 39 once ended with 42, not kept), so a view with
	// too few is turned by an orbit drag from the view's corner, fitted
	// again and looked at a second time; the cloth must show in one.
	x0, y0, x1, y1 := m.view3D()
	view := [4]float32{float32(x0), float32(y0), float32(x1), float32(y1)}
	n := clothPixels(readPNG(t, shot), view, m.st.Pins)
	t.Logf("final screenshot: %d cloth pixels", n)
	if n < monkeyClothPixels {
		m.turnView(x0+20, y1-20)
		m.key("f", " (fit view for a second look)")
		m.fresh()
		if shot = m.screenshot(30 * time.Second); shot == "" {
			m.fail("F12 saved no screenshot")
		}
		n2 := clothPixels(readPNG(t, shot), view, m.st.Pins)
		t.Logf("second look, turned: %d cloth pixels (%s)", n2, shot)
		if n2 < monkeyClothPixels {
			m.fail("the final screenshots, after a fit view and again turned, show %d and %d pixels of cloth, want at least %d", n, n2, monkeyClothPixels)
		}
	}
	final := m.v.stopClean()
	if !final.Finite || final.Error != "" {
		m.fail("at exit: finite %v, error %q", final.Finite, final.Error)
	}
}
