package app

import (
	"fmt"
	"sync"
	"time"

	"drape/render"
	"drape/sim/detail"
	"drape/sim/geom"
)

// detailWorker runs physics-aware subdivision (Tsiknis 2006 ch. 3,
// package detail) beside the viewer: the render loop hands it the newest
// snapshot's surface, a goroutine of its own details it, and the render
// loop draws the newest finished result. The simulation never waits for
// it and the render loop never blocks on it: a request that arrives while
// one is being worked on replaces any older waiting one (latest only),
// so on a slow machine the detail lags a few frames behind and skips
// frames, but never queues up. At level 1 on the 10,000-triangle gathered
// curtain one update to convergence within the iteration budget costs
// about 30 ms of CPU, more than a 30 fps frame beside the simulation,
// which keeps both cores busy; the worker gives an update
// detail.ViewerTimeLimit (25 ms), after which the Gauss–Newton iteration
// stops and the warm start carries the rest to the next update. So the
// update is ready after 22–26 ms as this worker feeds it (the median over
// runs; 90th percentile 26–43 ms; sim/detail's BenchmarkWhileSimulating,
// live): still too long to make the render loop wait; hence the
// goroutine.
type detailWorker struct {
	mu      sync.Mutex
	wake    chan struct{} // capacity 1: a request is waiting
	pending *detail.Frame // the newest request, nil when none
	spare   *detail.Frame // the frame storage not in use by either side
	level   int           // level of the pending request
	seq     uint64        // snapshot Seq of the pending request

	done     render.Mesh // the newest finished surface, float32
	doneSeq  uint64      // Seq it was made from; 0 when none
	doneErr  error
	doneTime time.Duration
	stop     chan struct{}
	wg       sync.WaitGroup
}

// newDetailWorker starts the worker goroutine; Close stops it.
func newDetailWorker() *detailWorker {
	w := &detailWorker{wake: make(chan struct{}, 1), stop: make(chan struct{}), spare: &detail.Frame{}}
	w.wg.Add(1)
	go w.run()
	return w
}

// Close stops the goroutine and waits for it.
func (w *detailWorker) Close() {
	close(w.stop)
	w.wg.Wait()
}

// Request asks for the detailed surface of snapshot surface s (seq) at
// level, kept out of obstacles obs (the snapshot's). It copies what it
// needs, so s and obs may be reused at once. A surface without material
// coordinates is ignored.
func (w *detailWorker) Request(s *Surface, obs []ObstacleInfo, seq uint64, level int) {
	nv := s.NumVerts()
	if len(s.Rest) != 2*nv || nv == 0 {
		return
	}
	w.mu.Lock()
	f := w.spare
	if f == nil { // the worker holds the other frame; reuse the pending one
		f = w.pending
	}
	w.spare = nil
	if f == nil {
		f = &detail.Frame{}
	}
	frameOf(s, obs, f, level)
	w.pending, w.seq, w.level = f, seq, level
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Result returns the newest finished surface (valid until the next call
// of Result from the render loop: the worker swaps buffers under the lock
// and copies into a fresh one), the Seq of the snapshot it was made from
// (0: none yet), and the error and time of the last update.
func (w *detailWorker) Result() (render.Mesh, uint64, error, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done, w.doneSeq, w.doneErr, w.doneTime
}

func (w *detailWorker) run() {
	defer w.wg.Done()
	p := detail.DefaultParams()
	p.TimeLimit = detail.ViewerTimeLimit
	d := detail.NewDetailer(p)
	var surf detail.Surface
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		w.mu.Lock()
		f, seq := w.pending, w.seq
		w.pending = nil
		w.mu.Unlock()
		if f == nil {
			continue
		}
		st, err := d.Update(f, &surf)
		var m render.Mesh
		if err == nil {
			m = toMesh(&surf)
		}
		w.mu.Lock()
		if err == nil {
			w.done, w.doneSeq = m, seq
		}
		w.doneErr, w.doneTime = err, st.Time
		if w.spare == nil {
			w.spare = f
		}
		w.mu.Unlock()
	}
}

// toMesh converts a detailed surface to the renderer's float32 mesh (new
// slices: the render loop may still hold the previous result).
func toMesh(s *detail.Surface) render.Mesh {
	m := render.Mesh{
		Pos:    make([]float32, 0, 3*len(s.Pos)),
		Normal: make([]float32, 0, 3*len(s.Pos)),
		Tris:   make([]uint32, 0, 3*len(s.Tris)),
	}
	for i, p := range s.Pos {
		n := s.Normal[i]
		m.Pos = append(m.Pos, float32(p.X), float32(p.Y), float32(p.Z))
		m.Normal = append(m.Normal, float32(n.X), float32(n.Y), float32(n.Z))
	}
	for _, t := range s.Tris {
		m.Tris = append(m.Tris, uint32(t[0]), uint32(t[1]), uint32(t[2]))
	}
	return m
}

// detailStatus is the Display panel's line about the detail surface.
func detailStatus(seq, snapSeq uint64, err error, took time.Duration, tris int) string {
	switch {
	case err != nil:
		return fmt.Sprintf("detail: %v", err)
	case seq == 0:
		return "detail: working…"
	}
	return fmt.Sprintf("detail: %d triangles, %.0f ms, %d snapshots behind", tris, float64(took.Microseconds())/1000, snapSeq-seq)
}

// syncDetail details snapshots one after another on the caller's
// goroutine, for drape record, which has time: a budget closer to
// convergence than the viewer's (20 Gauss–Newton iterations of up to 60
// CG iterations).
type syncDetail struct {
	d     *detail.Detailer
	frame detail.Frame
	surf  detail.Surface
	level int
}

func newSyncDetail(level int) (*syncDetail, error) {
	p := detail.DefaultParams()
	p.Level, p.MaxIter, p.MaxCG = level, 20, 60
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &syncDetail{d: detail.NewDetailer(p), level: level}, nil
}

// mesh returns the detailed surface of s, kept out of obstacles obs.
func (sd *syncDetail) mesh(s *Surface, obs []ObstacleInfo) (render.Mesh, error) {
	if len(s.Rest) != 2*s.NumVerts() {
		return render.Mesh{}, fmt.Errorf("the model publishes no material coordinates")
	}
	frameOf(s, obs, &sd.frame, sd.level)
	if _, err := sd.d.Update(&sd.frame, &sd.surf); err != nil {
		return render.Mesh{}, err
	}
	return toMesh(&sd.surf), nil
}

// frameOf fills f with snapshot surface s (positions, material
// coordinates, faces) in float64 and obstacles obs, reusing f's storage.
func frameOf(s *Surface, obs []ObstacleInfo, f *detail.Frame, level int) {
	nv := s.NumVerts()
	f.Pos, f.Rest, f.Tris, f.Level = f.Pos[:0], f.Rest[:0], f.Tris[:0], level
	f.Obstacles = f.Obstacles[:0]
	for _, o := range obs {
		if o.Shape != nil {
			f.Obstacles = append(f.Obstacles, detail.ObstacleAt(o.Shape, o.Pose))
		}
	}
	for i := 0; i < nv; i++ {
		f.Pos = append(f.Pos, geom.Vec3{X: float64(s.Pos[3*i]), Y: float64(s.Pos[3*i+1]), Z: float64(s.Pos[3*i+2])})
		f.Rest = append(f.Rest, geom.Vec2{X: float64(s.Rest[2*i]), Y: float64(s.Rest[2*i+1])})
	}
	for k := 0; k+2 < len(s.Tris); k += 3 {
		f.Tris = append(f.Tris, [3]int32{int32(s.Tris[k]), int32(s.Tris[k+1]), int32(s.Tris[k+2])})
	}
}
