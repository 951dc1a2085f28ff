// Package app is drape's interactive viewer: the simulation goroutine
// (simloop.go) running a cloth Model (model.go; the FEM cloth of Bender &
// Deul 2012 through model_fem.go, the mass-spring cloth of Olson & Rudnick
// through model_springs.go), the model's parameter blocks as one value
// that the panels send, the snapshot publishes, --state reports and the
// undo history keeps (blocks.go), the snapshot hand-over between it and the
// render loop (snapshot.go), the obstacles' drawn surfaces in it
// (obstacles.go), the render loop on the main OS thread (viewer.go), the
// look and camera fit it shares with drape record (view.go), mouse and
// keyboard interaction (input.go: camera, vertex drags, Shift + drag of
// obstacles), the ImGui panels (panels.go, whose parameter sliders come
// from the param tables of sim/cloth and sim/contact; panels_springs.go
// for sim/springs), the undo history of the person's changes (history.go),
// the --state file (state.go) and side by side (sidebyside.go: two runs of
// a scene, each on a Loop of its own, drawn next to each other; the
// _view.go and _panels.go files hold its GL and ImGui parts).
//
// Threads: the render loop owns GL, GLFW and ImGui and runs on the locked
// main OS thread (package main locks it in init). The simulation runs in
// one goroutine that alone touches the Model. They share exactly two
// things: a SnapshotBuffer (simulation → viewer, never blocking either
// side) and the Loop's command queue (viewer → simulation, applied between
// steps).
package app

import (
	"sync"
	"time"

	"drape/render"
	"drape/sim/cloth"
	"drape/sim/obstacle"
	"drape/sim/scene"
)

// Snapshot is one published simulation state, with the mesh compacted for
// drawing: dead vertex and face slots of the adaptive geom.Mesh are skipped,
// and live vertices are renumbered densely 0..NumVerts()−1 in slot order.
// It carries only simulation state. Once published it is immutable; the
// reader may use it until its next Acquire (see SnapshotBuffer).
type Snapshot struct {
	Seq   uint64 // publish counter of the Loop, starting at 1; 0 means "nothing yet"
	Epoch uint64 // incremented on every reset or scene change; plots and the camera fit restart on a new epoch
	Scene string // scene name
	// Camera is the scene file's camera (never modified), nil when it has
	// none: the viewer starts from it instead of fitting the view.
	Camera *scene.Camera
	// ClothColor is the scene file's cloth colour for the fabric look
	// (never modified), nil when it has none.
	ClothColor *[3]float64
	// Material is the scene file's fabric preset (never modified), "" for
	// none.
	Material string
	// Source is what the scene was loaded from: the built-in name or the
	// file given (side by side loads it again for its two runs).
	Source string

	// Surface is the simulated surface: picking, pins, bounds, --state
	// and the statistics use it, and it is drawn unless Detail has faces.
	Surface
	// Detail is an optional finer surface to draw instead of Surface (a
	// render mesh from physics-aware subdivision); empty when the model
	// draws what it simulates, as the FEM cloth does. Picking always uses
	// Surface.
	Detail Surface

	Slot    []int32 // model vertex id (sim vertex slot) of dense vertex i at Slot[i], −1 for a drawn vertex that is none (the spring cloth's cell centres); picks translate back through it
	DenseOf []int32 // dense index of model vertex id s at DenseOf[s], −1 for dead slots; len = number of ids

	Pins []PinInfo // pinned vertices, sorted by slot

	// Obstacles are the bodies the cloth collides with, in the scene's
	// order, as drawn at Stats.Time (see ObstacleInfo). ObstacleGen names
	// their geometry: it is unique to one geometry and changes whenever
	// any obstacle's surface changed (a drag, a scripted motion, the
	// ground square following the cloth, a new scene), so the viewer
	// uploads them only then; 0 when there are none.
	Obstacles   []ObstacleInfo
	ObstacleGen uint64

	// Blocks are the parameter blocks in force (Model.Blocks): the
	// panels' controls re-sync from them. Blocks.Adapt is the zero value,
	// which does not validate and is not held, when the scene has no
	// adaptivity settings and none were set.
	Blocks Blocks
	// EditErr is why the last CmdSetBlocks was rejected (the blocks in
	// force stayed), "" otherwise; EditSeq counts those commands handled
	// so far. A panel's edit is answered once EditSeq reaches the count
	// it sent. This pair is the one channel by which rejected edits
	// reach the viewer.
	EditErr string
	EditSeq uint64
	// History is what the person can undo and redo (history.go), for
	// the Undo and Redo buttons.
	History HistoryInfo

	Lo, Hi [3]float32 // axis-aligned bounds of the live vertices, m; Lo > Hi when there are none

	// Springs is the state of the mass-spring cloth (model_springs.go);
	// Springs.On is false when another model runs.
	Springs SpringsInfo

	Stats Stats
}

// ObstacleInfo is one obstacle of a Snapshot: what the Scene panel lists
// and the surface the viewer draws and picks. A Plane (infinite) is drawn
// as a square of side planeSquare around the point of the plane below the
// cloth.
type ObstacleInfo struct {
	Name     string
	Kind     obstacle.Kind
	Friction float64    // Coulomb μ between the cloth and this obstacle
	Offset   [3]float32 // user offset (the mouse drag), m
	Center   [3]float32 // centre of the drawn surface's bounds, world m
	Pos      []float32  // surface vertex i at Pos[3*i : 3*i+3], world m
	Normal   []float32  // unit outward normal of vertex i at Normal[3*i : 3*i+3]
	Tris     []uint32   // face f's vertices at Tris[3*f : 3*f+3], counter-clockwise from outside

	// Shape at Pose is the obstacle itself, for the detail surface's
	// distance queries (detail.ObstacleAt): only its queries at a pose,
	// which read its fixed shape, may be called through it.
	Shape *obstacle.Obstacle
	Pose  obstacle.Pose
}

// PinInfo is one pinned vertex of a Snapshot.
type PinInfo struct {
	Slot     int32      // sim vertex slot
	Dense    int32      // index into Snapshot.Pos
	Pos      [3]float32 // vertex position, m
	Target   [3]float32 // pin target, m: where the person put it; a pin moved by hand reaches it at cloth.HandSpeed
	Scripted bool       // the target follows a scene path; dragging it turns it into a fixed pin
}

// Stats describes the state behind a Snapshot and the step that produced
// it.
type Stats struct {
	Time      float64 // simulated time, s
	Steps     int     // steps taken since the scene was (re)built
	Dt        float64 // time step in force, s
	Vertices  int     // live vertices (= len(Pos)/3)
	Triangles int     // live faces (= len(Tris)/3)

	// StepInfo is the last step's: wall time by phase (StepInfo.Total,
	// the ms/step the panels show, is their sum), PCG iterations and
	// residual, what collision handling and strain limiting did.
	StepInfo
	Snapshot  time.Duration    // curvature, normals and compaction for this snapshot
	LastAdapt cloth.AdaptStats // the most recent adaptation (any earlier step): refined and coarsened counts, wall time

	StepsPerSec    float64 // measured over the last second of wall time
	RealTimeFactor float64 // simulated seconds per wall second over the last second
	SpeedTarget    float64 // requested real-time factor; 0 means as fast as possible

	KineticEnergy float64 // J
	CurvAbsP98    float32 // 98th percentile of |Curv| over the vertices, 1/m; for the automatic colour range
	Tangled       int     // intersecting pairs of cloth triangles sharing no vertex, counted about once a second, less often where a count takes over 50 ms (tangledWait) (−1: not counted)
	Retried       int     // steps since the scene was (re)built that needed the substep failsafe (cloth.Sim.Step)
	RetriedAtCap  int     // of those, the ones halved because the solve stopped at the PCG cap (cloth.ErrUnconverged)
	// StepMean is the mean wall time of the steps since the scene was
	// (re)built (0 before the first), for --state and side by side.
	StepMean time.Duration

	Paused bool   // stepping is stopped (by the user or by an error)
	Finite bool   // every live position and velocity is finite
	Err    string // why stepping stopped, e.g. an error wrapping cloth.ErrUnstable; "" when healthy
}

// Surface is a triangle mesh as drawn: dense vertices and faces.
type Surface struct {
	Pos     []float32 // dense vertex i at Pos[3*i : 3*i+3], world m
	Normal  []float32 // unit area-weighted normal of dense vertex i at Normal[3*i : 3*i+3]; (0,0,0) if undefined
	Curv    []float32 // signed display mean curvature of dense vertex i at Curv[i], 1/m: H (Meyer et al. 2003, geom.MeanCurvature) smoothed by geom.DisplayCurvature
	Rest    []float32 // material coordinates of dense vertex i at Rest[2*i : 2*i+2], m; empty when the model has none (physics-aware detail needs them)
	Tris    []uint32  // face f's dense vertices at Tris[3*f : 3*f+3]
	FaceGen []uint8   // refinement generation of face f at FaceGen[f] (adapt.Generation), saturated at 255
}

// NumVerts returns the number of dense vertices, len(Pos)/3.
func (s *Surface) NumVerts() int { return len(s.Pos) / 3 }

// NumTris returns the number of faces, len(Tris)/3.
func (s *Surface) NumTris() int { return len(s.Tris) / 3 }

// Vertex returns the position of dense vertex i.
func (s *Surface) Vertex(i int) [3]float32 {
	return [3]float32(s.Pos[3*i : 3*i+3])
}

// clear empties the surface, keeping its storage.
func (s *Surface) clear() {
	s.Pos, s.Normal, s.Curv, s.Tris, s.FaceGen = s.Pos[:0], s.Normal[:0], s.Curv[:0], s.Tris[:0], s.FaceGen[:0]
	s.Rest = s.Rest[:0]
}

// mesh returns the surface for render.ClothRenderer.Upload.
func (s *Surface) mesh() render.Mesh {
	return render.Mesh{Pos: s.Pos, Normal: s.Normal, Scalar: s.Curv, Tris: s.Tris, FaceGen: s.FaceGen}
}

// Drawn returns the surface to draw: Detail when it has faces, else the
// simulated Surface.
func (s *Snapshot) Drawn() *Surface {
	if len(s.Detail.Tris) > 0 {
		return &s.Detail
	}
	return &s.Surface
}

// SnapshotBuffer hands snapshots from one writer (the simulation
// goroutine) to one reader (the render loop) without either waiting for
// the other: a triple buffer. At any time one buffer is being written,
// one is the latest complete snapshot, and one is being read. Publish
// swaps the written buffer with the latest; Acquire swaps the latest with
// the read one if a newer snapshot exists. Both hold a mutex only for an
// index swap, so neither side ever waits for the other's work.
//
// Lifetime rule: the *Snapshot returned by Acquire is the reader's until
// its next Acquire, and the writer's buffer (Writable) is the writer's
// until its next Publish. Buffers are reused, so the writer refills the
// slices of an old snapshot in place (append to s[:0]) and no allocation
// happens once they are large enough.
type SnapshotBuffer struct {
	mu     sync.Mutex
	bufs   [3]Snapshot
	write  int  // owned by the writer between Publishes
	latest int  // the newest complete snapshot
	read   int  // owned by the reader between Acquires
	fresh  bool // latest is newer than read
}

// NewSnapshotBuffer returns an empty buffer; Acquire returns a snapshot
// with Seq 0 until the first Publish.
func NewSnapshotBuffer() *SnapshotBuffer {
	return &SnapshotBuffer{write: 0, latest: 1, read: 2}
}

// Writable returns the writer's buffer. Only the writer may call it.
func (b *SnapshotBuffer) Writable() *Snapshot {
	return &b.bufs[b.write] // b.write changes only in Publish, on the writer's goroutine
}

// Publish makes the writer's buffer the latest snapshot and hands the
// writer the previous latest one to fill next.
func (b *SnapshotBuffer) Publish() {
	b.mu.Lock()
	b.write, b.latest = b.latest, b.write
	b.fresh = true
	b.mu.Unlock()
}

// Taken reports whether the reader has acquired the latest snapshot
// (true before the first Publish). Safe from any goroutine.
func (b *SnapshotBuffer) Taken() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.fresh
}

// Acquire returns the latest complete snapshot. The previous one returned
// must no longer be used.
func (b *SnapshotBuffer) Acquire() *Snapshot {
	b.mu.Lock()
	if b.fresh {
		b.read, b.latest = b.latest, b.read
		b.fresh = false
	}
	s := &b.bufs[b.read]
	b.mu.Unlock()
	return s
}
