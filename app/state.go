package app

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"drape/render"
)

// State is what --state writes: enough to check the viewer from a script
// (the GUI tests do) without reading pixels. Positions are world metres;
// pixels are window coordinates of the last frame (origin top-left, y
// down, screen units as xdotool and the cursor use).
type State struct {
	Scene     string  `json:"scene"`
	Frames    int     `json:"frames"`    // frames rendered
	Seq       uint64  `json:"seq"`       // snapshot drawn in the last frame
	Time      float64 `json:"time"`      // simulated time, s
	Steps     int     `json:"steps"`     // steps since the scene was (re)built
	Vertices  int     `json:"vertices"`  // live vertices
	Triangles int     `json:"triangles"` // live triangles
	Tangled   int     `json:"tangled"`   // intersecting pairs of cloth triangles sharing no vertex (Stats.Tangled)
	Retried   int     `json:"retried"`   // steps the substep failsafe took again (Stats.Retried)
	Finite    bool    `json:"finite"`    // the state stayed finite (no NaN/Inf, no blow-up)
	Paused    bool    `json:"paused"`    // stepping was stopped
	Error     string  `json:"error"`     // why stepping stopped, "" when healthy
	GLErrors  int     `json:"gl_errors"` // OpenGL errors reported during the run
	// GLRenderer is the context's GL_RENDERER string, e.g. llvmpipe under
	// Xvfb's Mesa or the GPU's name (tools/gpufps.sh).
	GLRenderer string     `json:"gl_renderer"`
	Window     [2]float32 `json:"window"`      // window size, screen units
	Dragged    int32      `json:"dragged"`     // vertex being dragged in the last frame, −1 for none
	Pins       []PinState `json:"pins"`        // every pinned vertex, sorted by id
	Messages   []string   `json:"messages"`    // errors and notices the UI showed
	FPS        float64    `json:"fps"`         // render frames per second, smoothed
	StepsPerS  float64    `json:"steps_per_s"` // simulation steps per wall second
	// MsPerStepMean is the mean wall time per step since the scene was
	// (re)built, ms (Stats.StepMean).
	MsPerStepMean float64 `json:"ms_per_step_mean"`
	// StepBusy is how long the step in progress has been running, s; 0
	// between steps (Loop.Busy). A stalled viewer with StepBusy 0 is
	// waiting, not stepping.
	StepBusy float64 `json:"step_busy_s"`
	// Blocks are the parameter blocks in force, inline: every block
	// under its key in scene files (Block.Key) with the keys of its
	// param.Table, and under "blocks" the keys of those the model holds;
	// the others are zero.
	Blocks
	MaxGen    int             `json:"max_gen"`   // deepest refinement generation among the live faces
	Obstacles []ObstacleState `json:"obstacles"` // the scene's obstacles, in its order
	// DraggedObstacle is the index of the obstacle being dragged in the
	// last frame (Shift + left drag), −1 for none.
	DraggedObstacle int `json:"dragged_obstacle"`

	// Detail is the physics-aware detail surface (D); absent while Detail
	// is off.
	Detail *DetailState `json:"detail,omitempty"`

	// Widgets are the window rectangles [x0, y0, x1, y1] of named controls
	// drawn in the last frame (absent when scrolled or collapsed away):
	// "adaptive" (the Adaptivity checkbox), "g_max" (its slider),
	// "wireframe" (the Display checkbox) and "triangles plot" (Stats).
	Widgets map[string][4]float32 `json:"widgets"`

	// History is what Undo and Redo would change (history.go).
	History HistoryInfo `json:"history"`

	// SideBySide is the pair of runs side by side (sidebyside.go); absent
	// in the single view. The fields above are then the right run's,
	// with pixels in window coordinates.
	SideBySide *SideBySideState `json:"side_by_side,omitempty"`
}

// DetailState is the detail surface in State.
type DetailState struct {
	Shown     bool   `json:"shown"`     // the cloth drawn in the last frame is the detail surface
	Triangles int    `json:"triangles"` // its triangles
	Status    string `json:"status"`    // the Display panel's line about it
}

// ObstacleState is one obstacle in State.
type ObstacleState struct {
	Name     string     `json:"name"`
	Kind     string     `json:"kind"`
	Friction float64    `json:"friction"` // Coulomb μ
	Offset   [3]float32 `json:"offset"`   // user offset (the mouse drag), m
	Center   [3]float32 `json:"center"`   // centre of the drawn surface's bounds, m
	Pixel    [2]float32 `json:"pixel"`    // window position of Center in the last frame
	OnScreen bool       `json:"on_screen"`
}

// PinState is one pinned vertex in State.
type PinState struct {
	ID       int32      `json:"id"`        // sim vertex slot
	Position [3]float32 `json:"position"`  // m
	Target   [3]float32 `json:"target"`    // m
	Pixel    [2]float32 `json:"pixel"`     // window position of the vertex in the last frame
	OnScreen bool       `json:"on_screen"` // Pixel lies inside the window (and in front of the camera)
	Scripted bool       `json:"scripted"`  // the target follows a scene path
}

// stateOf returns the State of snapshot snap drawn with camera cam.
func stateOf(snap *Snapshot, cam *render.Camera, frames, glErrors int, dragged int32, msgs []string, fps float64, widgets map[string][4]float32) State {
	st := State{
		Scene: snap.Scene, Frames: frames, Seq: snap.Seq,
		Time: snap.Stats.Time, Steps: snap.Stats.Steps,
		Vertices: snap.Stats.Vertices, Triangles: snap.Stats.Triangles, Tangled: snap.Stats.Tangled, Retried: snap.Stats.Retried,
		Finite: snap.Stats.Finite && snap.Stats.Err == "", Paused: snap.Stats.Paused, Error: snap.Stats.Err,
		GLErrors: glErrors, Window: [2]float32{cam.Width, cam.Height},
		Dragged: dragged, Pins: []PinState{}, Messages: msgs,
		FPS: finite(fps), StepsPerS: finite(snap.Stats.StepsPerSec),
		MsPerStepMean: millis(snap.Stats.StepMean),
		Blocks:        snap.Blocks,
		Obstacles:     []ObstacleState{}, DraggedObstacle: -1,
		Widgets: map[string][4]float32{},
		History: snap.History,
	}
	for _, o := range snap.Obstacles {
		px, py, ok := cam.Project(o.Center)
		st.Obstacles = append(st.Obstacles, ObstacleState{
			Name: o.Name, Kind: o.Kind.String(), Friction: finite(o.Friction),
			Offset: finite3(o.Offset), Center: finite3(o.Center),
			Pixel:    [2]float32{finite32(px), finite32(py)},
			OnScreen: ok && px >= 0 && py >= 0 && px < cam.Width && py < cam.Height,
		})
	}
	for _, g := range snap.FaceGen {
		st.MaxGen = max(st.MaxGen, int(g))
	}
	for k, r := range widgets {
		st.Widgets[k] = [4]float32{finite32(r[0]), finite32(r[1]), finite32(r[2]), finite32(r[3])}
	}
	if st.Messages == nil {
		st.Messages = []string{}
	}
	for _, p := range snap.Pins {
		px, py, ok := cam.Project(p.Pos)
		st.Pins = append(st.Pins, PinState{
			ID: p.Slot, Position: finite3(p.Pos), Target: finite3(p.Target),
			Pixel:    [2]float32{finite32(px), finite32(py)},
			OnScreen: ok && px >= 0 && py >= 0 && px < cam.Width && py < cam.Height,
			Scripted: p.Scripted,
		})
	}
	return st
}

// writeState writes st as indented JSON to path atomically (a temporary
// file in the same directory, then rename), so a script polling the file
// never reads half of it.
func writeState(path string, st State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding state: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".state-*.json")
	if err != nil {
		return fmt.Errorf("writing state: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing state %s: %w", path, err)
	}
	return nil
}

// finite returns v, or 0 for NaN and ±Inf (JSON has neither).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func finite32(v float32) float32 { return float32(finite(float64(v))) }

func finite3(v [3]float32) [3]float32 {
	return [3]float32{finite32(v[0]), finite32(v[1]), finite32(v[2])}
}
