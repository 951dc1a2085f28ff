package app

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"drape/assets"
	"drape/sim/adapt"
	"drape/sim/cloth"
)

// fillConstant writes a snapshot of n vertices and n faces in which every
// value is the sequence number v, so a reader can tell a torn snapshot
// (values or lengths from two publishes) from a consistent one.
func fillConstant(s *Snapshot, v uint64, n int) {
	f := float32(v)
	s.Seq, s.Epoch = v, v
	s.Pos, s.Normal, s.Curv = s.Pos[:0], s.Normal[:0], s.Curv[:0]
	s.Tris, s.FaceGen, s.Slot = s.Tris[:0], s.FaceGen[:0], s.Slot[:0]
	for i := 0; i < n; i++ {
		s.Pos = append(s.Pos, f, f, f)
		s.Normal = append(s.Normal, f, f, f)
		s.Curv = append(s.Curv, f)
		s.Tris = append(s.Tris, uint32(v), uint32(v), uint32(v))
		s.FaceGen = append(s.FaceGen, uint8(v))
		s.Slot = append(s.Slot, int32(v))
	}
	s.Stats = Stats{Time: float64(v), Steps: int(v), Vertices: n, Triangles: n}
}

// checkConstant returns an error describing the first inconsistency of a
// snapshot written by fillConstant.
func checkConstant(s *Snapshot) error {
	v := s.Seq
	f := float32(v)
	n := s.Stats.Vertices
	if len(s.Pos) != 3*n || len(s.Normal) != 3*n || len(s.Curv) != n || len(s.Tris) != 3*n || len(s.FaceGen) != n || len(s.Slot) != n || s.Stats.Triangles != n {
		return errors.New("lengths disagree")
	}
	if s.Epoch != v || s.Stats.Steps != int(v) || s.Stats.Time != float64(v) {
		return errors.New("header disagrees")
	}
	for i := range s.Pos {
		if s.Pos[i] != f || s.Normal[i] != f {
			return errors.New("Pos/Normal value from another publish")
		}
	}
	for i := 0; i < n; i++ {
		if s.Curv[i] != f || s.Tris[3*i] != uint32(v) || s.FaceGen[i] != uint8(v) || s.Slot[i] != int32(v) {
			return errors.New("value from another publish")
		}
	}
	return nil
}

// TestSnapshotBufferConcurrent publishes snapshots of varying size from
// one goroutine while another acquires them; run with -race. Every
// acquired snapshot must be internally consistent and sequence numbers
// must never go backwards.
func TestSnapshotBufferConcurrent(t *testing.T) {
	b := NewSnapshotBuffer()
	const publishes = 20000
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for v := uint64(1); v <= publishes; v++ {
			fillConstant(b.Writable(), v, 1+int(v%97))
			b.Publish()
		}
	}()
	var last uint64
	reads, distinct := 0, 0
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		s := b.Acquire()
		reads++
		if s.Seq == 0 {
			continue
		}
		if s.Seq < last {
			t.Fatalf("sequence went backwards: got=%d after %d", s.Seq, last)
		}
		if s.Seq != last {
			distinct++
		}
		last = s.Seq
		if err := checkConstant(s); err != nil {
			t.Fatalf("snapshot %d: %v", s.Seq, err)
		}
	}
	wg.Wait()
	if s := b.Acquire(); s.Seq != publishes {
		t.Errorf("final snapshot: got=%d, want=%d", s.Seq, publishes)
	}
	t.Logf("%d reads, %d distinct snapshots", reads, distinct)
}

// TestSnapshotBufferReuse checks that publishing reuses the three buffers'
// storage: no allocation once they have grown.
func TestSnapshotBufferReuse(t *testing.T) {
	b := NewSnapshotBuffer()
	v := uint64(0)
	step := func() {
		v++
		fillConstant(b.Writable(), v, 500)
		b.Publish()
		b.Acquire()
	}
	for range 6 {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Errorf("allocations per publish: got=%v, want=0", a)
	}
}

func newTestLoop(t *testing.T, scene string, paused bool) *Loop {
	t.Helper()
	l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: scene, Paused: paused})
	if err != nil {
		t.Fatalf("NewLoop(%s): %v", scene, err)
	}
	return l
}

// checkSnapshot checks the invariants every snapshot documents.
func checkSnapshot(t *testing.T, s *Snapshot) {
	t.Helper()
	nv, nf := s.NumVerts(), s.NumTris()
	if len(s.Pos) != 3*nv || len(s.Normal) != 3*nv || len(s.Curv) != nv || len(s.Slot) != nv || len(s.FaceGen) != nf || len(s.Tris) != 3*nf {
		t.Fatalf("slice lengths disagree: pos %d normal %d curv %d slot %d tris %d gen %d", len(s.Pos), len(s.Normal), len(s.Curv), len(s.Slot), len(s.Tris), len(s.FaceGen))
	}
	if s.Stats.Vertices != nv || s.Stats.Triangles != nf {
		t.Errorf("stats counts: got=%d,%d, want=%d,%d", s.Stats.Vertices, s.Stats.Triangles, nv, nf)
	}
	for _, v := range s.Tris {
		if int(v) >= nv {
			t.Fatalf("triangle index %d out of range (%d vertices)", v, nv)
		}
	}
	alive := 0
	for slot, d := range s.DenseOf {
		if d < 0 {
			continue
		}
		alive++
		if s.Slot[d] != int32(slot) {
			t.Fatalf("Slot[DenseOf[%d]]: got=%d, want=%d", slot, s.Slot[d], slot)
		}
	}
	named := 0 // dense vertices that are model vertices
	for _, id := range s.Slot {
		if id >= 0 {
			named++
		}
	}
	if alive != named {
		t.Errorf("live slots in DenseOf: got=%d, want=%d", alive, named)
	}
	for _, p := range s.Pins {
		if p.Dense < 0 || s.Slot[p.Dense] != p.Slot || s.Vertex(int(p.Dense)) != p.Pos {
			t.Errorf("pin %+v does not match its vertex", p)
		}
	}
}

// TestSnapshotCompaction fills a snapshot from a mesh with dead slots (a
// face refined and coarsened again by the adapter) and checks that dead
// slots are skipped, indices are dense and generations come through.
func TestSnapshotCompaction(t *testing.T) {
	l := newTestLoop(t, "hanging", true)
	checkSnapshot(t, l.Snapshots().Acquire())
	m := l.s.(*femModel).sim.Mesh
	ad, err := adapt.NewAdapter(m, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !ad.Refine(500) {
		t.Fatal("Refine(500) refused")
	}
	// The adapter changed the mesh behind the simulation's back; rebuild
	// the simulation's per-slot data (the adaptive Sim does this itself).
	rebuild := func() {
		sim, err := cloth.New(m, l.s.Blocks().Params)
		if err != nil {
			t.Fatal(err)
		}
		l.s = newFEMModel(sim)
	}
	rebuild()
	l.publish(false)
	s := l.Snapshots().Acquire()
	checkSnapshot(t, s)
	if s.NumVerts() <= 961 || s.NumTris() <= 1800 {
		t.Errorf("after refinement: got=%d vertices, %d faces, want more than 961, 1800", s.NumVerts(), s.NumTris())
	}
	maxGen := uint8(0)
	for _, g := range s.FaceGen {
		maxGen = max(maxGen, g)
	}
	if maxGen == 0 {
		t.Errorf("no refined generation in FaceGen")
	}
	// Coarsen everything back: the slots become free.
	for changed := true; changed; {
		changed = false
		for f := range m.Tris {
			if m.FaceAlive(f) && adapt.Generation(m.Gen[f]) > 0 && ad.Coarsen(int32(f)) {
				changed = true
			}
		}
	}
	rebuild()
	l.publish(false)
	s = l.Snapshots().Acquire()
	checkSnapshot(t, s)
	dead := 0
	for _, d := range s.DenseOf {
		if d < 0 {
			dead++
		}
	}
	if s.NumVerts() != 961 || s.NumTris() != 1800 || dead == 0 {
		t.Errorf("after coarsening: got=%d vertices, %d faces, %d dead slots, want=961, 1800, >0", s.NumVerts(), s.NumTris(), dead)
	}
}

// runLoop starts l.Run and returns a function that stops it and waits.
func runLoop(t *testing.T, l *Loop) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		l.Run(ctx)
		close(done)
	}()
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("simulation goroutine did not stop within 10 s of cancel")
		}
	}
	t.Cleanup(stop)
	return stop
}

// waitFor acquires snapshots until ok returns true or the timeout passes.
func waitFor(t *testing.T, l *Loop, what string, ok func(*Snapshot) bool) *Snapshot {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s := l.Snapshots().Acquire()
		if ok(s) {
			checkSnapshot(t, s)
			return s
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
	return nil
}

// BenchmarkSnapshot measures what the simulation goroutine adds to every
// step: mean curvature, normals, compaction and the |H| percentile, and
// without the curvature (reuse: the viewer had not drawn the last one).
func BenchmarkSnapshot(b *testing.B) {
	for _, scene := range []string{"hanging", "curtain"} {
		l, err := NewLoop(LoopOptions{Scenes: assets.Scenes, Scene: scene, Paused: true})
		if err != nil {
			b.Fatal(err)
		}
		tris := l.s.(*femModel).sim.Mesh.NumTris()
		for _, reuse := range []bool{false, true} {
			b.Run("tris="+strconv.Itoa(tris)+"/reuse="+strconv.FormatBool(reuse), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					l.publish(reuse)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tris), "ns/triangle")
			})
		}
	}
}
