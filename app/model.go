package app

import (
	"drape/sim/cloth"
	"drape/sim/geom"
	"drape/sim/scene"
)

// Model is what the simulation Loop needs of a cloth model: stepping,
// parameter blocks, pins and drags, and a surface to draw and pick. The
// FEM cloth of Bender & Deul satisfies it through femModel (model_fem.go);
// a second model (the mass-spring cloth of sim/springs) satisfies it with
// its own adapter and a case in buildModel. Only the Loop's goroutine
// calls a Model.
//
// Vertices are named by the model's vertex ids (slots for geom.Mesh based
// models): Snapshot.Slot maps the surface's dense vertices back to them,
// so picking works on whatever surface the model publishes.
type Model interface {
	// Step advances one time step. On error the state is exactly as
	// before the call.
	Step() (StepInfo, error)
	Time() float64 // simulated time, s
	Steps() int    // steps since the model was built
	Dt() float64   // time step in force, s
	Finite() bool  // every position and velocity is finite
	KineticEnergy() float64

	// Blocks returns the parameter blocks in force: those the model has
	// (Blocks.Held), the FEM cloth's adaptivity settings only once set.
	Blocks() Blocks
	// SetBlocks validates the blocks b holds and applies those that differ
	// from the blocks in force from the next step on, or returns an error
	// naming the block and its field and keeps every block in force (see
	// applyBlocks). A block the model does not have is an error.
	SetBlocks(b Blocks) error
	// SaveObstacles writes the obstacles into sc where the user dragged
	// them (Spec.Position plus the offset), for a saved scene.
	SaveObstacles(sc *scene.Scene)

	Pins() []ModelPin
	Pin(v int32, target geom.Vec3) error // pin v at target (or move its pin there)
	Unpin(v int32)
	Drag(v int32, target geom.Vec3) error // pull free vertex v towards target
	Release()                             // end Drag
	// PinEdit returns the scene pin entry that repeats, on a rebuilt
	// scene, the user pinning v at target (or unpinning it), naming the
	// vertex so that it survives remeshing; false if v is not a vertex.
	PinEdit(v int32, target geom.Vec3, remove bool) (scene.PinSpec, bool)

	// Surface writes the surface to draw and pick into dst (Surface,
	// Slot, DenseOf, Lo, Hi, Pins, the obstacles with ObstacleGen and,
	// where the model draws a finer surface, Detail), reusing dst's
	// slices, and returns its statistics. With reuse, a model may keep
	// the curvature of its last call where the mesh's faces are the
	// same (Loop.publish: the viewer has not drawn that one yet).
	Surface(dst *Snapshot, reuse bool) SurfaceInfo
	// MoveObstacle moves the user offset of obstacle i (its index in the
	// scene's "obstacles" list) at once towards offset, m: the viewer's
	// drag while paused. It stops where the obstacle would reach the cloth
	// or come too close to another obstacle (cloth.Sim.JumpObstacle). An
	// index out of range or a non-finite offset is an error, and nothing
	// moves.
	MoveObstacle(i int, offset geom.Vec3) error
	// DragObstacle asks for obstacle i at user offset goal: from the next
	// step on the model moves it there at cloth.HandSpeed at most, as
	// motion that pushes the cloth. Errors as MoveObstacle.
	DragObstacle(i int, goal geom.Vec3) error
	LastAdapt() cloth.AdaptStats // the most recent adaptation; zero for models that do not adapt
	// SetInterrupt sets f, which Step may poll while it runs: when f
	// returns true, Step gives up and returns an error wrapping
	// cloth.ErrInterrupted with the state as before (cloth.Sim.SetInterrupt).
	// A model whose steps are always short may never poll it.
	SetInterrupt(f func() bool)
}

// StepInfo describes one Model step: the FEM cloth's step statistics
// (wall time by phase, whose sum is Total, solver iterations, contact
// and strain-limiting counts); a model without those phases reports its
// step's wall time as Other and leaves the rest zero.
type StepInfo struct {
	cloth.StepStats
}

// ModelPin is one pinned vertex of a Model.
type ModelPin struct {
	Vertex   int32     // model vertex id
	Target   geom.Vec3 // m
	Scripted bool      // the target follows a scene path
}

// SurfaceInfo is what Surface measures while filling a snapshot.
type SurfaceInfo struct {
	CurvAbsP98 float32 // 98th percentile of |Snapshot.Curv| (display mean curvature) weighted by vertex mass, 1/m
	// Tangled is the number of pairs of cloth triangles that share no
	// vertex and intersect (contact.IntersectingPairs), counted about
	// once a second of wall time; −1 when the model does not count.
	Tangled int
}

// buildModel builds the model a scene asks for (its "model" key): the
// FEM cloth, or the mass-spring cloth (model_springs.go).
func buildModel(sc *scene.Scene) (Model, error) {
	if sc.IsSprings() {
		c, err := sc.BuildSprings()
		if err != nil {
			return nil, err
		}
		return newSpringsModel(c), nil
	}
	s, err := sc.Build()
	if err != nil {
		return nil, err
	}
	return newFEMModel(s), nil
}
