package scene

import (
	"math"
	"sort"
	"testing"
	"time"

	"drape/sim/strainlimit"

	"drape/sim/cloth"
	"drape/sim/contact"
	"drape/sim/internal/exact"
	"drape/sim/internal/simtest"
	"drape/sim/obstacle"
)

// checker builds the exact intersection oracle (sim/internal/exact,
// written independently of the collision code) for the obstacles of sim at
// time t: their collision meshes and half-spaces.
func checker(sim *cloth.Sim, t float64) *exact.Checker {
	var surfs []exact.Surface
	var planes []exact.Plane
	for _, o := range sim.Obstacles() {
		if o.Kind == obstacle.Plane {
			p, n := o.Plane(t)
			planes = append(planes, exact.Plane{Point: p, Normal: n})
			continue
		}
		surfs = append(surfs, exact.Surface{Pos: o.Vertices(t, nil), Tris: o.Tris()})
	}
	return exact.NewChecker(surfs, planes)
}

// contactRun is one scene's intersection-free run: steps steps (fewer
// under -short), checked every `every` steps by the exact oracle.
type contactRun struct {
	name         string
	steps, short int
	every        int
}

// TestContactScenesIntersectionFree runs the contact scenes and checks,
// with the exact oracle, that no cloth vertex is inside an obstacle, no
// cloth triangle crosses an obstacle triangle and (self-collision on) no
// two cloth triangles that share no vertex intersect, at every checked
// step. It also reports the collision share of the step time.
func TestContactScenesIntersectionFree(t *testing.T) {
	runs := []contactRun{
		{"sphere-adaptive", 1200, 200, 10},
		{"ground", 600, 150, 10},
		{"ground-angled", 800, 150, 10},
		{"drape-box", 1000, 150, 10},
		{"tablecloth", 800, 120, 10},
		{"bunny", 800, 120, 10},
		// drop-pile's full run once lost a pair of its fourth layer at
		// step 753: two edges within δ at x^n, separating there, that
		// crossed later in the step (contact.TestTouchingThenCrossing).
		{"drop-pile", 800, 150, 10},
		{"fold", 800, 150, 10},
		{"two-sheets", 800, 150, 10},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			sc, err := LoadScene(sceneAssets, r.name)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			steps := r.steps
			if testing.Short() {
				steps = r.short
			}
			if simtest.Race {
				steps = min(steps, 30)
			}
			self := sc.Contact.SelfCollision
			var total, collide time.Duration
			minTris, maxTris := sim.Mesh.NumTris(), sim.Mesh.NumTris()
			for i := 1; i <= steps; i++ {
				st, err := sim.Step()
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				total += st.Total()
				collide += st.Collide
				if n := sim.LastAdapt().HeldRemoved; n != 0 {
					t.Errorf("step %d: adaptation removed %d faces in contact", i, n)
				}
				nt := sim.Mesh.NumTris()
				minTris, maxTris = min(minTris, nt), max(maxTris, nt)
				if i%r.every != 0 && i != steps {
					continue
				}
				rep := checker(sim, sim.Time).Check(sim.Mesh.Pos, sim.Mesh.Tris, self)
				if !rep.OK() {
					t.Fatalf("step %d (t=%.3f s): %v", i, sim.Time, rep)
				}
			}
			t.Logf("%d steps: triangles %d–%d, collision share %.1f %% of %.1f ms/step",
				steps, minTris, maxTris, 100*float64(collide)/float64(total), float64(total.Milliseconds())/float64(steps))
		})
	}
}

// TestTangledStartUntangles: a cloth that starts with its two sheets
// passing through each other (a bad OBJ: a horizontal sheet through the
// middle of a vertical one, the contour running from boundary to
// boundary), run with collisions and self-collision on, reaches zero
// intersecting pairs within 1 s of simulated time by the exact oracle
// (sim/internal/exact, independent of the collision code), stays at zero
// to the end of 2 s, and stays finite. Without untangling
// (cloth/untangle.go) the collisions held the tangle for the whole run.
func TestTangledStartUntangles(t *testing.T) {
	const tangledDrift = 30 // m after 2 s: 15 m/s on average (see below)
	sim := buildScene(t, nil, "testdata/tangled.json")
	before := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
	if before == 0 {
		t.Fatal("the tangled scene starts untangled: the test checks nothing")
	}
	dt := sim.Params().Dt
	steps, within := int(math.Round(2/dt)), int(math.Round(1/dt))
	if simtest.Race {
		steps, within = 60, 60
	}
	first := -1
	for i := 1; i <= steps; i++ {
		if _, err := sim.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		n := len(exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris))
		switch {
		case n == 0 && first < 0:
			first = i
		case n != 0 && first >= 0:
			t.Fatalf("step %d (t=%.3f s): %d intersecting pairs again after none at step %d", i, sim.Time, n, first)
		}
		if i == within && first < 0 && !simtest.Race {
			t.Fatalf("still %d intersecting pairs at t=%.3f s (%d at the start)", n, sim.Time, before)
		}
	}
	if !sim.Finite() {
		t.Fatal("the tangled cloth blew up")
	}
	// The cloth does not stay in place: untangling gives it momentum (the
	// solve's answer round the corrected vertices; docs/robustness.md,
	// "The tangled start drifts"), and it slides metres over the ground
	// in these 2 s. With every vertex nudged by up to 0.05 µm from 18
	// seeds the bounding box's diagonal at 2 s read 1.5–10.0 m, and
	// 1.7–21.3 m once the springs' coupling was merged (a change of
	// round-off only); the 5 m this checked before passed on the
	// unnudged start by chance. What stays checked is that nothing flies
	// off at the speed of a blow-up.
	lo, hi := sim.Mesh.Bounds()
	if d := hi.Sub(lo).Norm(); d > tangledDrift {
		t.Errorf("the tangled cloth spread over %.2f m", d)
	}
	_, spent := sim.Tangled()
	t.Logf("intersecting pairs: %d at the start, none from step %d (t=%.3f s); %d steps untangling", before, first, float64(first)*dt, spent)
}

// TestPokedThroughUntangles: on two-sheets (two sheets lying on a
// sphere, one over the other), a vertex of the lower sheet put 5 cm up,
// through the upper one (where a drag or a pin forced through in one
// step leaves it), makes a tent of the lower sheet through the upper;
// after it the exact oracle finds no intersecting pair within 1 s, and
// none after, to 1.5 s. Without untangling the collisions held the tent
// through the sheet for the whole run.
func TestPokedThroughUntangles(t *testing.T) {
	simtest.SkipUnderRace(t)
	sc, err := LoadScene(sceneAssets, "two-sheets")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	dt := sim.Params().Dt
	for i := 0; i < int(math.Round(0.6/dt)); i++ { // the sheets land on the sphere
		if _, err := sim.Step(); err != nil {
			t.Fatalf("t=%.3f s: %v", sim.Time, err)
		}
	}
	m := sim.Mesh
	if n := len(exact.SelfIntersections(m.Pos, m.Tris)); n != 0 {
		t.Fatalf("%d intersecting pairs before the poke", n)
	}
	// The lowest vertex within 5 cm of the axis above the sphere: the
	// lower sheet's, under the upper one.
	v := int32(-1)
	for i, p := range m.Pos {
		if m.VertAlive[i] && math.Hypot(p.X, p.Z) < 0.05 && (v < 0 || p.Y < m.Pos[v].Y) {
			v = int32(i)
		}
	}
	if v < 0 {
		t.Fatal("no vertex over the sphere's top")
	}
	m.Pos[v].Y += 0.05
	before := len(exact.SelfIntersections(m.Pos, m.Tris))
	if before == 0 {
		t.Fatal("the poke does not cross the upper sheet: the test checks nothing")
	}
	first := -1
	for i := 1; i <= int(math.Round(1.5/dt)); i++ {
		if _, err := sim.Step(); err != nil {
			t.Fatalf("t=%.3f s: %v", sim.Time, err)
		}
		n := len(exact.SelfIntersections(m.Pos, m.Tris))
		switch {
		case n == 0 && first < 0:
			first = i
		case n != 0 && first >= 0:
			t.Fatalf("%.3f s after the poke: %d intersecting pairs again after none at %.3f s", float64(i)*dt, n, float64(first)*dt)
		}
		if float64(i)*dt >= 1-1e-9 && first < 0 {
			t.Fatalf("still %d intersecting pairs 1 s after the poke (%d at the poke)", n, before)
		}
	}
	if !sim.Finite() {
		t.Fatal("the cloth blew up")
	}
	t.Logf("%d intersecting pairs at the poke, none from %.3f s after it", before, float64(first)*dt)
}

// TestCurtainSelfCollision: the adaptive curtain gathered with
// self-collision on (its default) has no pair of intersecting
// non-adjacent triangles at any checked step, its triangle count still
// rises as it folds (Bender & Deul fig. 6), and no adaptation removes a
// face in contact. Under -short the gathering starts at 0.3 s and ends at
// 3 s, and 700 steps are checked; the full run is the scene's schedule
// through the gathered state (12 s).
func TestCurtainSelfCollision(t *testing.T) {
	sc, err := LoadScene(sceneAssets, "curtain-adaptive")
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Contact.Enabled || !sc.Contact.SelfCollision {
		t.Fatal("curtain-adaptive should collide with itself by default")
	}
	steps, every := 2400, 25
	simtest.SkipUnderRace(t)
	if testing.Short() {
		g := *sc.Pins[0].Gather
		g.Start, g.End, g.Back = 0.3, 3, 0
		sc.Pins[0].Gather = &g
		steps, every = 700, 20
	}
	sim, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	base := sim.Mesh.NumTris()
	peak := base
	var total, collide time.Duration
	for i := 1; i <= steps; i++ {
		st, err := sim.Step()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		total += st.Total()
		collide += st.Collide
		if n := sim.LastAdapt().HeldRemoved; n != 0 {
			t.Errorf("step %d: adaptation removed %d faces in contact", i, n)
		}
		peak = max(peak, sim.Mesh.NumTris())
		if i%every != 0 {
			continue
		}
		if pairs := exact.SelfIntersections(sim.Mesh.Pos, sim.Mesh.Tris); len(pairs) > 0 {
			t.Fatalf("step %d (t=%.2f s): %d intersecting triangle pairs, first %v", i, sim.Time, len(pairs), pairs[0])
		}
	}
	if peak < 3*base {
		t.Errorf("peak triangles %d, want the gathered curtain refined to at least 3× its %d base triangles", peak, base)
	}
	t.Logf("%d steps: triangles %d → peak %d; collision share %.1f %% of %.1f ms/step", steps, base, peak,
		100*float64(collide)/float64(total), float64(total.Microseconds())/1000/float64(steps))
}

// TestTunnelling: a sphere scripted at 5 m/s through a hanging sheet
// pushes it and never passes through it, and a sheet dropped onto a 1 cm
// board at Δt = 20 ms stays on it: checked at every step by the exact
// oracle (no cloth vertex inside, no cloth triangle crossing an obstacle
// triangle), and the sheet must have been pushed (moved with the ball).
// sphere-ram rams a rough sphere 0.8 m into the middle of the sheet and
// stops it at step 32: every step must succeed (at b2a2391 step 33 failed
// at 204 m/s) and stay intersection-free; with -short it runs to step 50.
func TestTunnelling(t *testing.T) {
	simtest.SkipUnderRace(t)
	ram := 200
	if testing.Short() {
		ram = 50
	}
	for _, c := range []struct {
		file  string
		steps int
	}{{"testdata/sphere-through.json", 120}, {"testdata/thin-box.json", 50}, {"testdata/sphere-ram.json", ram}} {
		t.Run(c.file, func(t *testing.T) {
			sc, err := LoadScene(nil, c.file)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			minZ, minY := 0.0, 1.0
			for i := 1; i <= c.steps; i++ {
				if _, err := sim.Step(); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if rep := checker(sim, sim.Time).Check(sim.Mesh.Pos, sim.Mesh.Tris, false); !rep.OK() {
					t.Fatalf("step %d (t=%.3f s): %v", i, sim.Time, rep)
				}
				for _, p := range sim.Mesh.Pos {
					minZ, minY = min(minZ, p.Z), min(minY, p.Y)
				}
			}
			t.Logf("lowest cloth z %.3f m, lowest y %.3f m", minZ, minY)
			if c.file == "testdata/sphere-through.json" && minZ > -0.3 {
				t.Errorf("the ball passed without pushing the sheet (lowest z %.3f m)", minZ)
			}
			if c.file == "testdata/sphere-ram.json" && minZ > -0.6 {
				t.Errorf("the ball did not carry the sheet to its stop (lowest z %.3f m, the ball's back at -0.65 m)", minZ)
			}
			if c.file == "testdata/thin-box.json" && minY < 0.005 {
				t.Errorf("the sheet went below the board's top (lowest y %.4f m)", minY)
			}
		})
	}
}

// TestCollisionFailsafe: when the impact zones do not converge within
// their cap (forced here: one CCD pass, one zone pass), the step still
// succeeds, holding the free vertices still (cloth.Sim.Failsafes counts
// it), and the cloth stays free of intersections.
func TestCollisionFailsafe(t *testing.T) {
	sc, err := LoadScene(sceneAssets, "two-sheets")
	if err != nil {
		t.Fatal(err)
	}
	sc.Contact.CCDIterations, sc.Contact.ZoneIterations = 1, 1
	sim, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	simtest.SkipUnderRace(t)
	steps := 150
	for i := 1; i <= steps; i++ {
		if _, err := sim.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i%10 == 0 {
			if rep := checker(sim, sim.Time).Check(sim.Mesh.Pos, sim.Mesh.Tris, true); !rep.OK() {
				t.Fatalf("step %d: %v", i, rep)
			}
		}
	}
	t.Logf("failsafe steps: %d of %d", sim.Failsafes(), steps)
	if sim.Failsafes() == 0 {
		t.Error("the failsafe never ran: the test checks nothing")
	}
}

// TestZoneModes runs the self-collision scenes with rigid (Provot 1997)
// and enriched (Tsiknis 2006 ch. 2) impact zones: both stay free of
// intersections (exact oracle), and the log compares how much they
// dissipate (kinetic energy), how many zones they form and what the
// collision handling costs, the measurements the default is chosen by.
func TestZoneModes(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, name := range []string{"fold", "drop-pile"} {
		for _, mode := range []contact.ZoneMode{contact.RigidZones, contact.EnrichedZones} {
			sc, err := LoadScene(sceneAssets, name)
			if err != nil {
				t.Fatal(err)
			}
			sc.Contact.Zones = mode
			sim, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			steps := 400
			if testing.Short() {
				steps = 60
			}
			var ke, collide float64
			var zones, zoneSteps int
			for i := 1; i <= steps; i++ {
				st, err := sim.Step()
				if err != nil {
					t.Fatalf("%s %v: step %d: %v", name, mode, i, err)
				}
				ke += sim.KineticEnergy()
				collide += float64(st.Collide.Microseconds()) / 1000
				zones += st.Contact.Zones
				if st.Contact.Zones > 0 {
					zoneSteps++
				}
				if i%30 == 0 || i == steps {
					if rep := checker(sim, sim.Time).Check(sim.Mesh.Pos, sim.Mesh.Tris, true); !rep.OK() {
						t.Fatalf("%s %v: step %d: %v", name, mode, i, rep)
					}
				}
			}
			t.Logf("%s, %v zones, %d steps: mean kinetic energy %.4g J, steps with zones %d (%d zones), collisions %.2f ms/step, failsafes %d",
				name, mode, steps, ke/float64(steps), zoneSteps, zones, collide/float64(steps), sim.Failsafes())
		}
	}
}

// TestStrainLimitWithCollisions: on the adaptive curtain gathering into
// folds (its gathering shortened as in TestCurtainSelfCollision -short),
// with self-collision and strain limiting at 10 %, every step whose
// collisions needed no CCD response (only proximity impulses), and after
// which the mesh did not adapt, ends with every face within the limit,
// or, for a face that began the step over it by more than
// cloth.StrainRecovery's share of a step (a remesh's new face at up to
// 81 %), closer to it by that share: the limiter runs after the
// proximity impulses, which otherwise stretched the smallest faces to
// 25–61 % (cloth.strainState). After a step with CCD responses the limiter runs
// again (contact.betweenRounds), and at most 3 faces of such a step may
// be over 15 %, none over 50 %. The CCD responses after the last round
// keep the last word, so the largest strain there is a single event that
// moves with the trajectory: measured 10.9–29.2 % with the limiter's
// stitching tuned five ways, never more than one face over 15 % in a
// step; without the extra rounds 186 %, 31 faces over 15 %.
func TestStrainLimitWithCollisions(t *testing.T) {
	simtest.SkipUnderRace(t)
	sc, err := LoadScene(sceneAssets, "curtain-adaptive")
	if err != nil {
		t.Fatal(err)
	}
	g := *sc.Pins[0].Gather
	g.Start, g.End, g.Back = 0.3, 3, 0
	sc.Pins[0].Gather = &g
	sc.Strain.Enabled = true
	sim, err := sc.Build()
	if err != nil {
		t.Fatal(err)
	}
	sp := sim.StrainParams()
	limit := max(sp.MaxWeft, sp.MaxWarp)*(1+sp.Tolerance) + sp.Tolerance
	steps := 700
	if testing.Short() {
		steps = 300
	}
	recover := cloth.StrainRecovery * sim.Params().Dt
	var strains, before []float64
	checked, proximity, worstCCD, overCCD, closing := 0, 0, 0.0, 0, 0
	for i := 1; i <= steps; i++ {
		before = append(before[:0], strains...)
		st, err := sim.Step()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		strains = strainlimit.PrincipalStrains(sim.Mesh.Pos, sim.Mesh.Rest, sim.Mesh.Tris, strains)
		worst := 0.0
		for f, e := range strains {
			if sim.Mesh.FaceAlive(f) {
				worst = math.Max(worst, e)
			}
		}
		if st.Adapt > 0 {
			continue // the mesh changed after the step: new faces, new rest shapes
		}
		if st.Contact.CCDHits > 0 || st.Contact.Zones > 0 {
			worstCCD = math.Max(worstCCD, worst)
			over := 0
			for f, e := range strains {
				if sim.Mesh.FaceAlive(f) && e > 0.15 {
					over++
				}
			}
			overCCD = max(overCCD, over)
			continue
		}
		checked++
		if st.Contact.SelfProximity > 0 {
			proximity++
		}
		for f, e := range strains {
			if !sim.Mesh.FaceAlive(f) || e <= limit {
				continue
			}
			// A face that began the step over the limit by more than
			// cloth.StrainRecovery's share of it is taken in by that
			// share (a remesh's new face, or CCD's last word).
			if f < len(before) && e <= before[f]-recover+sp.Tolerance {
				closing++
				continue
			}
			t.Fatalf("step %d: face %d at strain %.3f after a step with %d cloth–cloth proximity pairs and no CCD response (%.3f before it), limit %.3f", i, f, e, st.Contact.SelfProximity, before[f], limit)
		}
	}
	t.Logf("%d steps without CCD responses checked (%d with cloth–cloth proximity impulses; %d faces over the limit, closing in on it); after steps with CCD responses: largest strain %.3f, at most %d faces over 15 %%", checked, proximity, closing, worstCCD, overCCD)
	if proximity == 0 || worstCCD == 0 {
		t.Error("no step had cloth–cloth proximity impulses, or none CCD responses: the test checks nothing")
	}
	if worstCCD > 0.5 || overCCD > 3 {
		t.Errorf("after steps with CCD responses: largest strain %.3f (want ≤ 0.5), %d faces over 15 %% in one step (want ≤ 3)", worstCCD, overCCD)
	}
}

// TestCrumpledScenesComeToRest: a strip dropped into a pile and a sheet
// dropped onto the bunny settle. Over the last 0.5 s of the scene (to
// 4 s) the mean vertex speed is below restSpeed, and at the end nine
// faces in ten are stretched by less than 2 %. Before the repulsion
// springs entered the solve (cloth/repulsion.go) the collision phase
// trapped the membrane's relaxation every step: drop-pile ended at
// 2.4 m/s with a tenth of its faces stretched by more than 40 %, bunny
// at 0.8 m/s. The speed was read at the last step alone, against
// 0.1 m/s, until the strain hold after CCD (cloth's strainLimits)
// changed bunny's trajectory: its speed at the last step went from
// 0.100 to 0.148 m/s while its mean over the last 0.5 s went from 0.095
// to 0.099; the mean is the steadier reading, and 0.15 keeps the test
// far below the boils it is for (TestCrumpledClothDoesNotBoil has the
// boils of nudged starts, 0.3–0.45 m/s).
func TestCrumpledScenesComeToRest(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, name := range []string{"drop-pile", "bunny"} {
		t.Run(name, func(t *testing.T) {
			sc, err := LoadScene(sceneAssets, name)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := sc.Build()
			if err != nil {
				t.Fatal(err)
			}
			const restSpeed, window = 0.15, 0.5 // m/s, s
			m := sim.Mesh
			steps := int(math.Round(sc.Duration / sim.Params().Dt))
			last := int(math.Round(window / sim.Params().Dt))
			var speed float64
			for i := 1; i <= steps; i++ {
				if _, err := sim.Step(); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if i <= steps-last {
					continue
				}
				var sum float64
				n := 0
				for k, v := range m.Vel {
					if m.VertAlive[k] {
						sum += v.Norm()
						n++
					}
				}
				speed += sum / float64(n) / float64(last)
			}
			strains := strainlimit.PrincipalStrains(m.Pos, m.Rest, m.Tris, nil)
			sort.Float64s(strains)
			p90 := strains[len(strains)*9/10]
			t.Logf("t = %.1f s: mean speed over the last %g s %.3f m/s, kinetic energy %.3g J, 90th percentile of the largest principal strain %.2f %%", sim.Time, window, speed, sim.KineticEnergy(), 100*p90)
			if speed > restSpeed {
				t.Errorf("mean vertex speed %.3f m/s over the last %g s, want < %g m/s (at rest)", speed, window, restSpeed)
			}
			if p90 > 0.02 {
				t.Errorf("a tenth of the faces stretched by more than %.1f %%, want < 2 %%", 100*p90)
			}
			if rep := checker(sim, sim.Time).Check(m.Pos, m.Tris, true); !rep.OK() {
				t.Errorf("at the end: %v", rep)
			}
		})
	}
}

// collisionsOff switches s's collisions off and returns its contact
// parameters as they were, to switch them back on with.
func collisionsOff(t *testing.T, s *cloth.Sim) contact.Params {
	t.Helper()
	on := s.ContactParams()
	off := on
	off.Enabled = false
	if err := s.SetContactParams(off); err != nil {
		t.Fatal(err)
	}
	return on
}

// freeInside returns how many of s's free (unpinned) vertices are deeper
// than tol inside obstacle o, and the deepest one's depth, m.
func freeInside(s *cloth.Sim, o *obstacle.Obstacle, tol float64) (n int, deepest float64) {
	pinned := map[int32]bool{}
	for _, p := range s.Pins() {
		pinned[p.Vertex] = true
	}
	for i, p := range s.Mesh.Pos {
		if !s.Mesh.VertAlive[i] || pinned[int32(i)] {
			continue
		}
		if d, _ := o.SignedDistance(p, s.Time); d < -tol {
			n++
			deepest = math.Max(deepest, -d)
		}
	}
	return n, deepest
}

// lowestVertex returns the height of s's lowest live vertex, m.
func lowestVertex(s *cloth.Sim) float64 {
	y := math.Inf(1)
	for i, p := range s.Mesh.Pos {
		if s.Mesh.VertAlive[i] {
			y = math.Min(y, p.Y)
		}
	}
	return y
}

// TestCollisionsBackOnInsideSphere: the sphere scene's cloth, collisions
// switched off until its middle has sunk 25 cm into the sphere, and back
// on: the cloth inside is let out (contact's roundContact: a vertex
// inside a round body is a CCD contact only when it goes deeper), no step
// needs the collision failsafe, and within 1 s no free vertex is inside
// the sphere. Before, each vertex inside was a contact at τ = 0 however it
// moved, and it stayed where it was: here the impact zones the sphere
// holds kept all 52 still for the whole second; in the monkey's
// sphere-adaptive seed 103 the zones did not converge, every step ended in
// the collision failsafe, which holds the whole cloth still, and it stayed
// frozen for good (1649 crossing pairs).
func TestCollisionsBackOnInsideSphere(t *testing.T) {
	simtest.SkipUnderRace(t)
	s := buildScene(t, sceneAssets, "sphere-adaptive")
	on := collisionsOff(t, s)
	sphere := s.Obstacles()[0]
	inside := func() (int, float64) { return freeInside(s, sphere, obstacle.ChordTolerance) }
	for _, d := inside(); d < 0.25; _, d = inside() {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	n0, d0 := inside()
	if err := s.SetContactParams(on); err != nil {
		t.Fatal(err)
	}
	t0, f0 := s.Time, s.Failsafes()
	out := math.Inf(1)
	for s.Time < t0+1 {
		if _, err := s.Step(); err != nil {
			t.Fatalf("t = %.3f s, %.3f s after collisions came back on: %v", s.Time, s.Time-t0, err)
		}
		if n, _ := inside(); n == 0 && math.IsInf(out, 1) {
			out = s.Time - t0
		}
	}
	n1, d1 := inside()
	t.Logf("%d vertices inside the sphere, the deepest %.3f m, when collisions came back on; none after %.2f s; 1 s later %d (%.4f m); %d failsafe steps", n0, d0, out, n1, d1, s.Failsafes()-f0)
	if f := s.Failsafes() - f0; f > 0 {
		t.Errorf("%d steps of the 200 after collisions came back on needed the collision failsafe, want none", f)
	}
	if n1 > 0 {
		t.Errorf("1 s after collisions came back on %d free vertices are inside the sphere, the deepest %.4f m, want none", n1, d1)
	}
}

// TestCollisionsBackOnInsideBox: drape-box's sheet, collisions switched
// off until it has fallen into the box (its lowest vertex 5 cm above the
// ground: 47 vertices up to 11 cm inside, 129 vertices or faces across it
// by the exact oracle), and back on: within 1 s no free vertex is inside
// the box and no cloth face crosses it, and no step needs the collision
// failsafe. A mesh body is seen by its triangles, within h of them;
// before contact's Body.Inside (contact/deep.go) nothing pushed the cloth
// out and CCD held it in: all 47 vertices and 129 crossings stayed (the
// monkey's drape-box seed 402: 85 vertices for 50 s). Free after 0.03 s
// now.
func TestCollisionsBackOnInsideBox(t *testing.T) {
	simtest.SkipUnderRace(t)
	s := buildScene(t, sceneAssets, "drape-box")
	on := collisionsOff(t, s)
	box := s.Obstacles()[0]
	inside := func() (int, float64) { return freeInside(s, box, 0) }
	crossing := func() int {
		rep := checker(s, s.Time).Check(s.Mesh.Pos, s.Mesh.Tris, false)
		return rep.Inside + rep.ObstaclePairs
	}
	for lowestVertex(s) > 0.05 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	n0, d0 := inside()
	c0 := crossing()
	if err := s.SetContactParams(on); err != nil {
		t.Fatal(err)
	}
	t0, f0 := s.Time, s.Failsafes()
	out, free := math.Inf(1), math.Inf(1)
	for s.Time < t0+1 {
		if _, err := s.Step(); err != nil {
			t.Fatalf("t = %.3f s, %.3f s after collisions came back on: %v", s.Time, s.Time-t0, err)
		}
		if n, _ := inside(); n == 0 && math.IsInf(out, 1) {
			out = s.Time - t0
		}
		if math.IsInf(free, 1) && crossing() == 0 {
			free = s.Time - t0
		}
	}
	n1, d1 := inside()
	c1 := crossing()
	t.Logf("%d vertices inside the box, the deepest %.3f m, and %d vertices or faces across it (oracle) when collisions came back on; no vertex inside after %.2f s, none across after %.2f s; 1 s later %d (%.4f m) and %d; %d failsafe steps", n0, d0, c0, out, free, n1, d1, c1, s.Failsafes()-f0)
	if f := s.Failsafes() - f0; f > 0 {
		t.Errorf("%d steps after collisions came back on needed the collision failsafe, want none", f)
	}
	if n1 > 0 || c1 > 0 {
		t.Errorf("1 s after collisions came back on %d free vertices are inside the box, the deepest %.4f m, and the oracle finds %d vertices or faces across it, want none", n1, d1, c1)
	}
}

// TestCollisionsBackOnDeepInside: collisions switched off let the ground
// scene's sheet fall 9 m through the ground (about 1.4 s off), and
// switched back on, the proximity response moves it out (the escape,
// contact.EscapeSpeed, and beyond 6 m contact.EscapeTime) and lets it
// keep no more than contact.PushSpeed: every vertex is above −h within
// 0.5 s, half the monkey's grace, no velocity exceeds PushSpeed, and the
// sheet lies on the ground. Without the cap the sheet was flung out at
// 60 m/s, its lowest vertex 23 m up half a second later (in the monkey's
// ground seed 1, whose sheet had a modulus 30 times stiffer, a blow-up
// at 1500 m/s); with PushSpeed alone, a sheet 3 m down took 1.6 s to
// rise; with the escape at a tenth of the overlap a step up to 10 m/s,
// this one took 0.99 s; at the whole overlap a step up to 30 m/s, 0.33
// s; at a tenth up to 30 m/s, 0.44 s (now 0.42 s). The second case falls 40 m (about
// 2.9 s off; the monkey's two-sheets seed 942 fell 34 m in 3.7 s) and
// must be out within the grace, 1 s: 0.77 s (at EscapeSpeed alone,
// 1.47 s).
func TestCollisionsBackOnDeepInside(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, c := range []struct{ depth, limit float64 }{{9, 0.5}, {40, 1}} {
		s := buildScene(t, sceneAssets, "ground")
		on := collisionsOff(t, s)
		lowest := func() float64 { return lowestVertex(s) }
		for lowest() > -c.depth {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		depth := -lowest()
		if err := s.SetContactParams(on); err != nil {
			t.Fatal(err)
		}
		h := s.ContactParams().Thickness
		t0, fastest, out := s.Time, 0.0, math.Inf(1)
		for s.Time < t0+c.limit+1 {
			if _, err := s.Step(); err != nil {
				t.Fatalf("t = %.3f s, %.3f s after collisions came back on: %v", s.Time, s.Time-t0, err)
			}
			for i, v := range s.Mesh.Vel {
				if s.Mesh.VertAlive[i] {
					fastest = math.Max(fastest, v.Norm())
				}
			}
			if math.IsInf(out, 1) && lowest() > -h {
				out = s.Time - t0
			}
		}
		t.Logf("sheet %.2f m below the ground when collisions came back on; out after %.2f s; after %.2f s the lowest vertex at %.4f m, the fastest speed meanwhile %.2f m/s", depth, out, s.Time-t0, lowest(), fastest)
		if fastest > contact.PushSpeed*1.01 {
			t.Errorf("%.0f m down: fastest vertex %.2f m/s, want at most PushSpeed, %g", c.depth, fastest, contact.PushSpeed)
		}
		if out > c.limit {
			t.Errorf("%.0f m down: the sheet was out of the ground %.2f s after collisions came back on, want within %.2f s", c.depth, out, c.limit)
		}
		if y := lowest(); y < -h || y > 0.05 {
			t.Errorf("%.0f m down: lowest vertex at %.4f m, want on the ground (within [−h, 5 cm])", c.depth, y)
		}
	}
}

// TestCollisionsBackOnPinsInside: the ground scene's sheet falls through
// the ground with collisions off and a person pins three of its vertices
// where they lie, about 0.6 m down; collisions back on send the pins out to
// the surface at HandSpeed (cloth's pinsOutside), and within 1 s of it
// the pins' targets are on the ground and no vertex is deeper than h.
// Before, the pins held the sheet in: the monkey's seed 600 on ground
// kept 952 vertices under it until the next reset, 5.6 s later (that
// run, with the half-space's CCD as well, is monkey's
// TestMonkeyPinsOutOfTheGround). On the way out the cloth round the
// rising pins moves at up to 7.9 m/s (measured; 29 m/s for about 0.15 s
// while the escape was the whole overlap a step), the escape lifting
// what the pins still hold down; it must stay well below a blow-up.
//
// The second case pins the same vertices right after collisions come
// back on (the monkey's ground seed 800, with the sheet 5–7 m down): Pin
// gave a new pin within HandSpeed·Δt of its vertex its target as it
// was, inside the ground, so the pin stayed there and held the cloth in
// (and the other pins, leashed to it by HandStretch, stalled half a
// metre above it); it now goes out like the others.
func TestCollisionsBackOnPinsInside(t *testing.T) {
	simtest.SkipUnderRace(t)
	for _, c := range []struct {
		name     string
		pinAfter bool
	}{{"pinned with collisions off", false}, {"pinned once they are back on", true}} {
		t.Run(c.name, func(t *testing.T) { pinsInside(t, c.pinAfter) })
	}
}

// pinsInside is TestCollisionsBackOnPinsInside's case: the pins set
// before collisions come back on or, with pinAfter, right after.
func pinsInside(t *testing.T, pinAfter bool) {
	s := buildScene(t, sceneAssets, "ground")
	on := collisionsOff(t, s)
	for lowestVertex(s) > -0.6 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m := s.Mesh
	var deep []int32 // the three deepest vertices, far enough apart to be pinned
	for range 3 {
		best := int32(-1)
		for v := range m.Pos {
			if !m.VertAlive[v] {
				continue
			}
			near := false
			for _, q := range deep {
				near = near || m.Rest[v].Sub(m.Rest[q]).Norm2() < 0.3*0.3
			}
			if !near && (best < 0 || m.Pos[v].Y < m.Pos[best].Y) {
				best = int32(v)
			}
		}
		deep = append(deep, best)
	}
	lowPin := math.Inf(1)
	for _, v := range deep {
		lowPin = math.Min(lowPin, m.Pos[v].Y)
	}
	pin := func() {
		for _, v := range deep {
			if err := s.Pin(v, m.Pos[v]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !pinAfter {
		pin()
	}
	if err := s.SetContactParams(on); err != nil {
		t.Fatal(err)
	}
	if pinAfter {
		pin()
	}
	h := on.Thickness
	t0, out, fastest := s.Time, math.Inf(1), 0.0
	for s.Time < t0+1 {
		if _, err := s.Step(); err != nil {
			t.Fatalf("t = %.3f s, %.3f s after collisions came back on: %v", s.Time, s.Time-t0, err)
		}
		fastest = math.Max(fastest, s.MaxSpeed())
		if math.IsInf(out, 1) && lowestVertex(s) > -h {
			out = s.Time - t0
		}
	}
	lowPin1 := math.Inf(1)
	for _, p := range s.Pins() {
		lowPin1 = math.Min(lowPin1, p.Target.Y)
	}
	t.Logf("pins %v set %.3f m down at the deepest; 1 s after collisions came back on the lowest pin target at %.4f m, the lowest vertex at %.4f m (all above −h after %.2f s), the fastest speed meanwhile %.2f m/s", deep, -lowPin, lowPin1, lowestVertex(s), out, fastest)
	if lowPin > -0.3 {
		t.Fatalf("the deepest pin was set %.3f m down: the test needs pins deep in the ground", -lowPin)
	}
	if lowPin1 < 0 {
		t.Errorf("a pin's target is %.4f m under the ground 1 s after collisions came back on", -lowPin1)
	}
	if y := lowestVertex(s); y < -h {
		t.Errorf("a vertex is %.4f m under the ground 1 s after collisions came back on, want none deeper than h = %g", -y, h)
	}
	if fastest > 60 {
		t.Errorf("the cloth moved at up to %.1f m/s on its way out, want at most 60", fastest)
	}
}
