package contact

import (
	"fmt"
	"math"
	"syscall"
	"testing"

	"drape/sim/geom"
)

// This file holds the benchmarks: Resolve on a sheet draped over a sphere
// mesh and on the scene suite's resting and folded sheets, and the stages
// one by one (BenchmarkKernels), with CPU time per call beside the wall
// time (the machine is shared), and the helpers that set a solver up
// without a call.

// draped returns a sheet of 2·n² triangles (1.2 m square) draped over a
// sphere mesh of radius 0.3 m (icosphere, 20480 faces): the vertices over
// the sphere lie 2 mm off its surface (within h), the others hang on a
// vertical cylinder 6 mm outside it; velocities 0.5 m/s downwards, as in a
// draping step.
func draped(b *testing.B, n int) (*Cloth, []Body) { return drapedOn(b, n, 5) }

// drapedOn is draped over an icosphere of subdivision sub (20·4^sub faces).
func drapedOn(b *testing.B, n, sub int) (*Cloth, []Body) {
	c := sheet(b, 1.2, n, 0, 0, 0, geom.Vec3{Z: -0.5})
	const r = 0.3
	sp := sphereBody(r, sub, geom.Vec3{})
	for i, x := range c.X {
		d := math.Hypot(x.X, x.Y)
		if d < r {
			c.X[i] = geom.Vec3{X: x.X, Y: x.Y, Z: math.Sqrt(r*r - d*d)}.Unit().Scale(r + 0.002)
		} else {
			c.X[i] = geom.Vec3{X: x.X * (r + 0.006) / d, Y: x.Y * (r + 0.006) / d, Z: -(d - r)}
		}
	}
	return c, []Body{sp}
}

// folded returns a sheet of 2·n² triangles folded over itself: the far half
// lies 2 mm above the near half (within h), for the self-collision kernels.
func folded(b *testing.B, n int) *Cloth {
	c := sheet(b, 1, n, 0, 0, 0, geom.Vec3{})
	for i, x := range c.X {
		if x.X > 0 {
			// Fold about x = 0 onto the left half, 2 mm up, bending round
			// a 1 mm radius.
			c.X[i] = geom.Vec3{X: -x.X, Y: x.Y, Z: 0.002}
		}
		c.V[i] = geom.Vec3{X: 0.01 * math.Sin(7*x.Y), Z: -0.05 * math.Cos(5*x.X)}
	}
	return c
}

func BenchmarkResolveSphere(b *testing.B) {
	for _, tc := range []struct{ n, sub int }{{30, 5}, {100, 5}, {100, 4}} {
		c, bodies := drapedOn(b, tc.n, tc.sub)
		v := append([]geom.Vec3{}, c.V...)
		for _, self := range []bool{false, true} {
			b.Run(fmt.Sprintf("tris=%d/sphere=%d/self=%v", len(c.Tris), len(bodies[0].Tris), self), func(b *testing.B) {
				p := DefaultParams()
				p.SelfCollision = self
				st := timeResolve(b, c, bodies, v, p)
				b.ReportMetric(float64(len(c.Tris)), "triangles")
				b.ReportMetric(float64(st.Proximity+st.SelfProximity), "pairs")
				b.ReportMetric(float64(st.CCDHits), "hits")
				b.Logf("%+v", st)
			})
		}
	}
}

// BenchmarkResolveScenes times Resolve on a 1800-triangle sheet (1 m)
// resting 2 mm above a ground half-space, with small velocities as in a
// resting step (the scene suite's "ground"), and on the 20000-triangle
// sheet folded onto itself 2 mm apart (folded), self-collision off and on.
func BenchmarkResolveScenes(b *testing.B) {
	gc := sheet(b, 1, 30, 0, 0, 0.002, geom.Vec3{})
	for i, x := range gc.X {
		gc.V[i] = geom.Vec3{X: 0.01 * math.Sin(9*x.Y), Y: 0.01 * math.Cos(7*x.X), Z: -0.02 + 0.01*math.Sin(11*x.X+5*x.Y)}
	}
	ground := []Body{{Normal: geom.Vec3{Z: 1}, Friction: 0.5}}
	fc := folded(b, 100)
	for _, tc := range []struct {
		name   string
		c      *Cloth
		bodies []Body
	}{{"ground", gc, ground}, {"folded", fc, nil}} {
		v := append([]geom.Vec3{}, tc.c.V...)
		for _, self := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/tris=%d/self=%v", tc.name, len(tc.c.Tris), self), func(b *testing.B) {
				p := DefaultParams()
				p.SelfCollision = self
				st := timeResolve(b, tc.c, tc.bodies, v, p)
				b.ReportMetric(float64(len(tc.c.Tris)), "triangles")
				b.ReportMetric(float64(st.Proximity+st.SelfProximity), "pairs")
				b.ReportMetric(float64(st.CCDHits), "hits")
				b.Logf("%+v", st)
			})
		}
	}
}

// BenchmarkResolveCull times Resolve with self-collision on the
// 20000-triangle sheet draped over the sphere mesh and on the folded one,
// with the culling of cloth–cloth pairs on and off (Params.Cull): what
// the reference costs.
func BenchmarkResolveCull(b *testing.B) {
	dc, db := draped(b, 100)
	for _, tc := range []struct {
		name   string
		c      *Cloth
		bodies []Body
	}{{"sphere", dc, db}, {"folded", folded(b, 100), nil}} {
		v := append([]geom.Vec3{}, tc.c.V...)
		for _, cull := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/tris=%d/cull=%v", tc.name, len(tc.c.Tris), cull), func(b *testing.B) {
				p := DefaultParams()
				p.Cull = cull
				st := timeResolve(b, tc.c, tc.bodies, v, p)
				b.ReportMetric(float64(st.SelfProximity), "self-pairs")
				b.ReportMetric(float64(st.CCDHits), "hits")
			})
		}
	}
}

// timeResolve times Resolve on cloth c against bodies with p by a fresh
// solver, the velocities reset to v before each call, after one call
// that warms it (static grids, work arrays), reports the allocations and
// the CPU time per call (cpu-ms/op), and returns the last call's stats.
func timeResolve(b *testing.B, c *Cloth, bodies []Body, v []geom.Vec3, p Params) Stats {
	s := NewSolver()
	b.ReportAllocs()
	copy(c.V, v)
	if _, err := s.Resolve(c, bodies, 0.005, p); err != nil {
		b.Fatal(err)
	}
	var st Stats
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(c.V, v)
		var err error
		if st, err = s.Resolve(c, bodies, 0.005, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	return st
}

// cpuTime returns the process's user + system CPU time, ns: on the shared
// 2-core machine wall-clock figures swing with the other processes' load,
// CPU time much less (with -cpu 1 no worker spins).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// kernelSolver prepares a solver on the cloth and bodies as Resolve does,
// up to the grids, for the kernel benchmarks.
func kernelSolver(c *Cloth, bodies []Body, p Params) *Solver {
	s := NewSolver()
	s.c, s.bs, s.dt, s.p = c, bodies, 0.005, p
	s.delta = 1e-3 * p.Thickness
	s.nearV = make([]bool, len(c.X))
	s.dirty = make([]bool, len(c.X))
	s.dirtyNext = make([]bool, len(c.X))
	s.clothTopology()
	s.prepareBodies()
	return s
}

// BenchmarkKernels times the stages on a 20000-triangle sheet draped over
// a 20480-face sphere (cloth–body pairs) and on a 20000-triangle sheet
// folded onto itself 2 mm apart (cloth–cloth pairs): a hash grid's
// rebuild over the cloth's faces (hash update), the proximity query with
// its narrow phase, and a full CCD pass (query and narrow phase) without
// the proximity pass's candidate pairs.
func BenchmarkKernels(b *testing.B) {
	sc, sb := draped(b, 100)
	fc := folded(b, 100)
	for _, tc := range []struct {
		name   string
		c      *Cloth
		bodies []Body
		self   bool
	}{{"sphere", sc, sb, false}, {"folded", fc, nil, true}} {
		p := DefaultParams()
		p.SelfCollision = tc.self
		s := kernelSolver(tc.c, tc.bodies, p)
		s.mode = modeProximity
		s.detect() // boxes
		b.Run(tc.name+"/hash-update", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s.self.build(s.cellLen)
			}
			b.ReportMetric(float64(len(tc.c.Tris)), "triangles")
			b.ReportMetric(float64(len(s.self.items)), "entries")
		})
		for _, mode := range []int{modeProximity, modeCCD} {
			name := "/proximity"
			if mode == modeCCD {
				name = "/ccd"
			}
			b.Run(tc.name+name, func(b *testing.B) {
				s.mode = mode
				n := 0
				b.ReportAllocs()
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					s.candLo = s.candLo[:0] // full query every time
					s.useDirty = false
					n = s.detect()
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(len(tc.c.Tris)), "triangles")
				b.ReportMetric(float64(n), "pairs")
			})
		}
	}
}
