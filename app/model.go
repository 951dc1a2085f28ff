package app

import (
	"time"

	"drape/sim/cloth"
	"drape/sim/contact"
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

	// Block returns the value of the parameter block with the given scene
	// key ("params", "adapt", "contact"; a model's own, e.g. "springs"), a
	// value type whose fields its param.Table describes (cloth.Params,
	// cloth.AdaptParams, contact.Params); nil when the model has no such block or it is
	// not set. Blocks lists the keys the model has.
	Block(key string) any
	Blocks() []string
	// SetBlock validates v (the block's value type) and applies it from
	// the next step on, or returns an error naming the field and keeps the
	// value in force.
	SetBlock(key string, v any) error
	// SaveBlocks writes the blocks in force into sc, for a saved scene,
	// and the obstacles where the user dragged them (Spec.Position plus
	// the offset).
	SaveBlocks(sc *scene.Scene)

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
	// slices, and returns its statistics.
	Surface(dst *Snapshot) SurfaceInfo
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
}

// StepInfo describes one Model step.
type StepInfo struct {
	Assemble, Solve, Other, Adapt time.Duration // wall time by phase
	Collide                       time.Duration // collision handling (zero without obstacles and self-collision)
	Iterations                    int           // linear solver iterations; 0 for explicit models
	Residual                      float64       // relative residual reached
	Contact                       contact.Stats // what collision handling did; zero for models without contact
	Springs                       int           // repulsion springs in the solve (cloth.StepStats); 0 for models without
	Substeps                      int           // substeps the failsafe took (cloth.StepStats); 0 for models without
}

// Total returns the wall time of the step.
func (s StepInfo) Total() time.Duration {
	return s.Assemble + s.Solve + s.Other + s.Collide + s.Adapt
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
