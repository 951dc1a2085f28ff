package monkey

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/geom"
	"drape/sim/internal/simtest"
	"drape/sim/obstacle"
)

// TestMonkey plays random interaction on scenes with pins, obstacles,
// self-collision and adaptivity, and requires no blow-up, no panic, no
// intersection lasting past the grace period, and retries on fewer than
// 1 % of the steps: the hanging sheet (pins, drags, sliders) with two
// seeds and the cloth on a box (an obstacle and the ground) with one,
// 3 s each, about 10 s of wall time in all. docs/robustness.md lists the
// runs made outside CI and the seeds that still fail. The long run of
// issue 39 is `drape monkey --scene all --seeds 20 --seconds 60`.
func TestMonkey(t *testing.T) {
	runs := []struct {
		scene string
		seed  uint64
	}{{"hanging", 1}, {"hanging", 2}, {"drape-box", 1}}
	const seconds = 3.0
	simtest.SkipUnderRace(t)
	for _, r := range runs {
		sc, seed := r.scene, r.seed
		{
			res, err := Run(Config{Scenes: assets.Scenes, Scene: sc, Seed: seed, Seconds: seconds})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res)
			if !res.OK() {
				t.Errorf("%s seed %d: %d failures, first %v", sc, seed, len(res.Failures), res.Failures)
			}
			if res.Retried*100 >= res.Steps {
				t.Errorf("%s seed %d: %d of %d steps retried, want under 1 %%", sc, seed, res.Retried, res.Steps)
			}
			if res.Actions < 3 {
				t.Errorf("%s seed %d: only %d actions in %g s: the monkey does not play", sc, seed, res.Actions, seconds)
			}
		}
	}
}

// TestMonkeyRolledEdge replays the run that found untangling's
// corrections undone by the cloth's elasticity (cloth's untangle, the
// correction prescribed in the solve): hanging-irregular seed 115, reset
// at 2.3 s of play and then with contact off for 2 s while pins were
// dragged, which left the sheet's lower edge rolled through itself.
// Corrected after the solve, the rolled vertices came back in every next
// solve, and 3–4 pairs stayed from t = 2.1 s (the first failure at
// t = 4.125 s, 6.45 s of play); prescribed in the solve, the roll is
// free at t = 2.1 s.
func TestMonkeyRolledEdge(t *testing.T) {
	replaySeed(t, "hanging-irregular", 115, 6.5)
}

// TestMonkeyTangleStops replays the run that found the layers of a
// tangle carried through each other by their own momentum (cloth's
// untangleStop): ground-angled seed 921, collisions off from 2.93 s to
// 4.24 s over a sheet that fell 0.75 m through the ground. After the
// escape one contour of 40–70 crossing pairs stayed while the sheet slid
// at up to 9.8 m/s (the first failure at t = 5.3 s); with the stop the
// checks find 3 pairs at 5.2 s and none from 5.25 s, 1 s after the first
// (a narrow margin: one check). 5.5 s of play, past that failure.
func TestMonkeyTangleStops(t *testing.T) {
	replaySeed(t, "ground-angled", 921, 5.5)
}

// Replays retired: a replay guards its fix only while its play still
// reaches the state it was written for, and every change to the physics
// sends a chaotic play elsewhere. The strain hold after CCD (cloth's
// strainLimits) did so to drop-pile seed 114 (the pin fans searched;
// TestPinnedPokeUntangles in package cloth keeps that fix) and drape-box
// seed 402 (cloth inside a box; scene.TestCollisionsBackOnInsideBox and
// contact.TestClothLeavesBox keep it). What their new plays met instead
// is in docs/robustness.md, "The strain hold after CCD, landed".

// TestMonkeyPinsOutOfTheGround: the monkey's ground seed 600 switched
// collisions off at 3.4 s into its fourth play of the scene, pinned four
// vertices of the sheet as it fell 0.3–0.6 m through the ground, and
// switched collisions back on at 5.3 s: 952 vertices stayed under the
// ground, held by the pins, until the next reset (the first failure at
// t = 6.36 s, 20.7 s into the run). Collisions coming back on now send
// such pins out (cloth's pinsOutside), and the half-space's CCD leaves
// vertices deeper than h to the proximity stage, which otherwise held
// every step of the pins' way out (TestCollisionsBackOnPinsInside).
// Replayed for 23 s: no cloth inside an obstacle lasts past the grace.
func TestMonkeyPinsOutOfTheGround(t *testing.T) {
	replayNothingInside(t, "ground", 600, 23)
}

// replayNothingInside plays scene with seed for seconds of simulated time
// and fails on a blow-up, a panic, or cloth inside an obstacle past the
// grace; tangles of the cloth with itself are left to other tests.
func replayNothingInside(t *testing.T, scene string, seed uint64, seconds float64) {
	t.Helper()
	res := playSeed(t, scene, seed, seconds)
	if res.Blowups > 0 || res.Panics > 0 {
		t.Errorf("%d blow-ups, %d panics", res.Blowups, res.Panics)
	}
	for _, f := range res.Failures {
		if strings.Contains(f.What, insideWhat) {
			t.Errorf("at step %d (t = %.3f s): %s", f.Step, f.Time, f.What)
		}
	}
}

// replaySeed plays scene with seed for seconds of simulated time and
// fails on any failure the monkey reports: a run that found a root cause,
// replayed as its regression test.
func replaySeed(t *testing.T, scene string, seed uint64, seconds float64) {
	t.Helper()
	if res := playSeed(t, scene, seed, seconds); !res.OK() {
		t.Errorf("%d failures, first %v", len(res.Failures), res.Failures)
	}
}

// playSeed plays scene with seed for seconds of simulated time, logs the
// result and returns it; under the race detector it skips the test.
func playSeed(t *testing.T, scene string, seed uint64, seconds float64) *Result {
	t.Helper()
	simtest.SkipUnderRace(t)
	res, err := Run(Config{Scenes: assets.Scenes, Scene: scene, Seed: seed, Seconds: seconds})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	return res
}

// TestMonkeySeesTangles: the oracle and the grace period catch what they
// are for. A cloth that starts with its sheets through each other
// (../scene/testdata/tangled.json) untangles in about half a second; with
// a grace of 10 ms the monkey must report the tangle as lasting.
func TestMonkeySeesTangles(t *testing.T) {
	res, err := Run(Config{Scene: "../scene/testdata/tangled.json", Seed: 1, Seconds: 0.2, CheckEvery: 2, Grace: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || res.Lasting == 0 || res.MaxPairs == 0 {
		t.Fatalf("a tangled start passed: %v", res)
	}
	t.Log(res)
}

// TestMonkeyFoundSeeds replays, whole, the runs that found this issue's
// later root causes (docs/robustness.md), which take minutes and so run
// only with DRAPE_LONG set (not in CI; the causes have short
// tests of their own, where one could be made):
//   - tablecloth seed 103 × 10 s: a blow-up at t = 3.035 s (550 m/s)
//     from the strain limit pulling back at once what the CCD responses
//     stretched (cloth.StrainRecovery; short test
//     cloth.TestStrainLimitTakesInGently). It must pass.
//   - sphere-adaptive seed 103 × 10 s: collisions back on after 0.65 s
//     off found 1950 vertices inside the sphere, and the cloth froze
//     (contact's roundContact; short test
//     scene.TestCollisionsBackOnInsideSphere), then 1075 stayed inside
//     for 2 s, held by faces inside the sphere that counted as going
//     deeper (contact's detectRoundFaceChunk; no short test found: a
//     sheet put through the sphere's middle leaves it either way). No
//     failure may be an obstacle's; the cloth's own tangle from falling
//     through itself (about 1000–2000 pairs) is open and allowed here.
func TestMonkeyFoundSeeds(t *testing.T) {
	if !simtest.Long() {
		t.Skip("minutes of play: set DRAPE_LONG=1")
	}
	for _, c := range []struct {
		scene    string
		seed     uint64
		tangleOK bool
	}{{"tablecloth", 103, false}, {"sphere-adaptive", 103, true}} {
		t.Run(fmt.Sprintf("%s/%d", c.scene, c.seed), func(t *testing.T) {
			res, err := Run(Config{Scenes: assets.Scenes, Scene: c.scene, Seed: c.seed, Seconds: 10})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res)
			for _, f := range res.Failures {
				if c.tangleOK && strings.Contains(f.What, "intersecting cloth triangle pairs") {
					continue
				}
				t.Errorf("%v", f)
			}
		})
	}
}

// TestMonkeyWallBudget: a run that spends its wall-time budget stops
// there and fails, saying how far it got (what `drape monkey --wall`
// reports for a scene that play made crawl).
func TestMonkeyWallBudget(t *testing.T) {
	res, err := Run(Config{Scenes: assets.Scenes, Scene: "hanging", Seed: 1, Seconds: 60, Wall: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || len(res.Failures) != 1 || !strings.Contains(res.Failures[0].What, "wall budget") || res.Time >= 60 {
		t.Fatalf("a 60 s run with a 50 ms budget: %v", res)
	}
	t.Log(res)
}

// TestSliderRevertsOnlyItsControl: putting a slider back restores that
// control alone. The friction slider is moved, collisions are switched
// off after it, and the friction's revert must leave them off (restoring
// the whole contact block switched them back on over a sheet that had
// fallen through the ground: ground seed 1, docs/robustness.md).
func TestSliderRevertsOnlyItsControl(t *testing.T) {
	r := &run{cfg: Config{Scenes: assets.Scenes}, res: &Result{}}
	for seed := uint64(0); ; seed++ {
		if seed == 1000 {
			t.Fatal("no seed of 1000 moved the friction slider")
		}
		if err := r.load("hanging"); err != nil {
			t.Fatal(err)
		}
		r.rng = rand.New(rand.NewPCG(seed, 1))
		s := r.sim
		slide(r, "contact", contact.Table, s.ContactParams(), (*cloth.Sim).ContactParams, (*cloth.Sim).SetContactParams, true, 0)
		if len(r.reverts) == 1 && r.reverts[0].what == "contact.friction" {
			break
		}
	}
	s := r.sim
	before := contact.DefaultParams().Friction
	if got := s.ContactParams().Friction; got == before {
		t.Fatalf("the slider left the friction at %v", got)
	}
	cp := s.ContactParams()
	cp.Enabled = false
	if err := s.SetContactParams(cp); err != nil {
		t.Fatal(err)
	}
	if err := r.reverts[0].set(s); err != nil {
		t.Fatal(err)
	}
	if got := s.ContactParams(); got.Enabled || got.Friction != before {
		t.Errorf("after the friction's revert: collisions on %v (want false), friction %v (want %v)", got.Enabled, got.Friction, before)
	}
}

// TestMonkeyDepth: the deepest penetration the monkey reports is measured
// by every obstacle's own signed distance, the ground plane's included:
// drape-box's free vertices put 5 cm under its ground read 50 mm (it read
// 0 for everything but spheres and capsules before).
func TestMonkeyDepth(t *testing.T) {
	r := &run{cfg: Config{Scenes: assets.Scenes}, rng: rand.New(rand.NewPCG(1, 1)), res: &Result{}}
	if err := r.load("drape-box"); err != nil {
		t.Fatal(err)
	}
	r.tangledSince, r.insideSince = -1, -1
	var ground *obstacle.Obstacle
	for _, o := range r.sim.Obstacles() {
		if o.Kind == obstacle.Plane {
			ground = o
		}
	}
	if ground == nil {
		t.Fatal("drape-box has no ground plane")
	}
	p, n := ground.Plane(r.sim.Time)
	m := r.sim.Mesh
	for v := range m.Pos {
		m.Pos[v] = p.Add(n.Scale(-0.05)).Add(geom.Vec3{X: 1e-3 * float64(v%7), Z: 1e-3 * float64(v%11)})
	}
	r.check()
	if d := r.res.MaxDepth; d < 0.0499 || d > 0.0501 {
		t.Errorf("deepest %.4f m, want 0.05 (every vertex 5 cm under the ground)", d)
	}
	if r.res.MaxInside == 0 {
		t.Error("no vertex counted inside")
	}
}
