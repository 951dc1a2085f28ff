package detail

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/scene"
)

var curtain struct {
	once   sync.Once
	frames []*Frame
	err    error
}

// curtainFrames runs the curtain-adaptive scene with its rail gathered to a
// quarter of its width between 0.3 s and 2.3 s (instead of 5–11 s, to keep
// the run short) and returns 12 frames from 1.3 s to 2.4 s, every 0.1 s:
// real adaptive meshes (4–11k triangles) with real compression.
func curtainFrames(tb testing.TB) []*Frame {
	if testing.Short() {
		tb.Skip("runs the curtain scene")
	}
	curtain.once.Do(func() {
		sc, err := scene.LoadScene(assets.Scenes, "curtain-adaptive")
		if err != nil {
			curtain.err = err
			return
		}
		g := sc.Pins[0].Gather
		g.Start, g.End, g.Back = 0.3, 2.3, 0
		sim, err := sc.Build()
		if err != nil {
			curtain.err = err
			return
		}
		dt := sc.Params.Dt
		every := int(math.Round(0.1 / dt))
		for k := 1; k <= int(math.Round(2.4/dt)); k++ {
			if _, err := sim.Step(); err != nil {
				curtain.err = err
				return
			}
			if k >= int(math.Round(1.3/dt)) && k%every == 0 {
				curtain.frames = append(curtain.frames, frameOf(sim.Mesh))
			}
		}
	})
	if curtain.err != nil {
		tb.Fatal(curtain.err)
	}
	return curtain.frames
}

// BenchmarkCurtain measures one warm-started Update per frame on the
// gathered curtain, cycling over the frames (so most calls see a changed
// coarse mesh, as in the viewer).
func BenchmarkCurtain(b *testing.B) {
	frames := curtainFrames(b)
	for _, kind := range []EnergyKind{EdgeEnergy, FaceEnergy} {
		for _, run := range []struct {
			level int
			mode  string
		}{{1, "budget"}, {2, "budget"}, {1, "converged"}, {2, "converged"}} {
			level := run.level
			b.Run(fmt.Sprintf("%v/level=%d/%s", kind, level, run.mode), func(b *testing.B) {
				p := DefaultParams()
				if run.mode == "converged" {
					p.MaxIter, p.MaxCG = 50, 60
				}
				p.Energy, p.Level = kind, level
				det := NewDetailer(p)
				var s Surface
				det.Update(frames[0], &s)
				b.ReportAllocs()
				b.ResetTimer()
				c0 := cpuTime()
				var its, tris, coarse float64
				for i := 0; i < b.N; i++ {
					st, err := det.Update(frames[(i+1)%len(frames)], &s)
					if err != nil {
						b.Fatal(err)
					}
					its += float64(st.Iterations)
					tris += float64(st.FineTris)
					coarse += float64(st.Coarse)
				}
				n := float64(b.N)
				b.ReportMetric(its/n, "GN-iter/op")
				b.ReportMetric(coarse/n, "coarse-tris")
				b.ReportMetric(tris/n, "fine-tris")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/n, "ms/op")
				b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/n, "cpu-ms/op")
			})
		}
	}
}

// TestCompareEnergies runs both membrane energies on the same curtain
// frames and logs time, iterations and two measures: the edge-artifact
// ratio (mean |d| at fine points on coarse edges over mean |d| at fine
// points inside coarse faces; 1 means the coarse edges do not show) and the
// material length deficit of the fine edges in compressed faces (mean of
// max{T_e − S_e, 0}/T_e with the face metric target), 0 when the folds
// hold all the compressed material.
func TestCompareEnergies(t *testing.T) {
	frames := curtainFrames(t)
	for _, level := range []int{1, 2} {
		if v, err := strconv.Atoi(os.Getenv("DETAIL_LEVEL")); err == nil && v != level {
			continue
		}
		for _, kind := range []EnergyKind{EdgeEnergy, FaceEnergy} {
			p := DefaultParams()
			p.Energy, p.Level = kind, level
			if v, err := strconv.Atoi(os.Getenv("DETAIL_MAXITER")); err == nil {
				p.MaxIter = v
			}
			if v, err := strconv.Atoi(os.Getenv("DETAIL_MAXCG")); err == nil {
				p.MaxCG = v
			}
			det := NewDetailer(p)
			var s Surface
			var onE, inE, nOn, nIn, def, nDef float64
			var total, cpu time.Duration
			its, cgs, fine, coarse := 0, 0, 0, 0
			for _, f := range frames {
				c0 := cpuTime()
				st, err := det.Update(f, &s)
				if err != nil {
					t.Fatal(err)
				}
				cpu += cpuTime() - c0
				total += st.Time
				its += st.Iterations
				cgs += st.CGIterations
				fine += st.FineTris
				coarse += st.Coarse
				face, bary := det.Mapping()
				for i, dv := range det.D() {
					if det.comp[face[i]] == 0 {
						continue
					}
					b := bary[i]
					if b[0] == 0 || b[1] == 0 || b[2] == 0 {
						onE += math.Abs(dv)
						nOn++
					} else {
						inE += math.Abs(dv)
						nIn++
					}
				}
				dd, nd := faceDeficit(det, f, s)
				def += dd
				nDef += nd
			}
			nf := float64(len(frames))
			t.Logf("%v level %d: %d frames, %.0f coarse → %.0f fine triangles, %.1f ms/Update wall, %.1f ms CPU, %.1f GN and %.0f CG iterations/Update, edge-artifact ratio %.2f, length deficit %.4f",
				kind, level, len(frames), float64(coarse)/nf, float64(fine)/nf, float64(total.Microseconds())/1000/nf,
				float64(cpu.Microseconds())/1000/nf, float64(its)/nf, float64(cgs)/nf, (onE/nOn)/(inE/nIn), def/nDef)
		}
	}
}

// faceDeficit sums max{T_e − S_e, 0}/T_e over the fine edges inside
// compressed coarse faces, with T_e = S⁰_e/|F·t̂_e| as FaceEnergy defines
// it, and returns the sum and the count.
func faceDeficit(det *Detailer, f *Frame, s Surface) (float64, float64) {
	t := &det.t
	sum, n := 0.0, 0.0
	seen := map[uint64]bool{}
	for c, tr := range t.fine {
		fc := t.faceOf[c]
		if det.comp[fc] == 0 {
			continue
		}
		F := det.fcol[fc]
		for i := 0; i < 3; i++ {
			a, b := tr[i], tr[(i+1)%3]
			k := edgeKey(a, b)
			if seen[k] {
				continue
			}
			seen[k] = true
			dr := t.fRest[b].Sub(t.fRest[a])
			l := math.Sqrt(dr.Norm2())
			lam := F[0].Scale(dr.X / l).Add(F[1].Scale(dr.Y / l)).Norm()
			target := det.x[b].Sub(det.x[a]).Norm() / lam
			got := s.Pos[b].Sub(s.Pos[a]).Norm()
			sum += math.Max(target-got, 0) / target
			n++
		}
	}
	return sum, n
}

// cpuTime returns the CPU time this process has used (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRebuild alternates two curtain frames with different coarse
// faces and one Gauss–Newton iteration of one CG step, so it measures the
// rebuild of the fine topology, the warm-start transfer and prepare.
func BenchmarkRebuild(b *testing.B) {
	frames := curtainFrames(b)
	for _, level := range []int{1, 2} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			p := DefaultParams()
			p.Level, p.MaxIter, p.MaxCG = level, 1, 1
			det := NewDetailer(p)
			var s Surface
			b.ReportAllocs()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := det.Update(frames[i%2], &s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
