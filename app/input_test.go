package app

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"drape/render"
	"drape/sim/geom"
	"drape/sim/obstacle"
)

// recorder collects the commands an Interaction sends.
type recorder struct{ cmds []Command }

func (r *recorder) Send(c Command) { r.cmds = append(r.cmds, c) }

func (r *recorder) last() Command {
	if len(r.cmds) == 0 {
		return Command{Kind: -1}
	}
	return r.cmds[len(r.cmds)-1]
}

// sheetSnapshot returns an n×n grid in the plane z = 0 spanning [0,1]²
// with dense = slot, and pins at the two top corners.
func sheetSnapshot(n int) *Snapshot {
	s := &Snapshot{Seq: 1, Epoch: 1}
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			s.Pos = append(s.Pos, float32(i)/float32(n), float32(j)/float32(n), 0)
			s.Normal = append(s.Normal, 0, 0, 1)
			s.Curv = append(s.Curv, 0)
			s.Slot = append(s.Slot, int32(len(s.Slot)))
		}
	}
	s.DenseOf = append([]int32(nil), s.Slot...)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a := uint32(j*(n+1) + i)
			s.Tris = append(s.Tris, a, a+1, a+uint32(n)+2, a, a+uint32(n)+2, a+uint32(n)+1)
			s.FaceGen = append(s.FaceGen, 0, 0)
		}
	}
	for _, v := range []int32{int32(n * (n + 1)), int32((n+1)*(n+1) - 1)} {
		p := s.Vertex(int(v))
		s.Pins = append(s.Pins, PinInfo{Slot: v, Dense: v, Pos: p, Target: p})
	}
	return s
}

// frontCamera looks at the sheet's centre straight along −Z.
func frontCamera() render.Camera {
	c := render.NewCamera(800, 600)
	c.Yaw, c.Pitch = 0, 0
	c.Fit(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 1, 0})
	return c
}

func TestPickVertex(t *testing.T) {
	s := sheetSnapshot(10)
	cam := frontCamera()
	for _, c := range []struct {
		p    mgl32.Vec3 // world point whose pixel is picked
		want int        // dense vertex, −1 for a miss
	}{
		{mgl32.Vec3{0.5, 0.5, 0}, 5*11 + 5},
		{mgl32.Vec3{0.32, 0.71, 0}, 7*11 + 3},
		{mgl32.Vec3{0.01, 0.01, 0}, 0},
		{mgl32.Vec3{1.5, 0.5, 0}, -1},
	} {
		px, py, _ := cam.Project(c.p)
		o, d := cam.Ray(px, py)
		got, hit, ok := PickVertex(s, o, d)
		if !ok {
			got = -1
		}
		if got != c.want {
			t.Errorf("pick at %v: got=%d, want=%d", c.p, got, c.want)
		}
		if ok && hit.Sub(c.p).Len() > 1e-4 {
			t.Errorf("hit point for %v: got=%v", c.p, hit)
		}
	}
}

func TestRayTriangleBothSides(t *testing.T) {
	a, b, c := mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 1, 0}
	for _, z := range []float32{1, -1} {
		d, ok := rayTriangle(mgl32.Vec3{0.2, 0.2, z}, mgl32.Vec3{0, 0, -z}, a, b, c)
		if !ok || math.Abs(float64(d-1)) > 1e-6 {
			t.Errorf("ray from z=%v: got=(%v,%v), want=(1,true)", z, d, ok)
		}
	}
	if _, ok := rayTriangle(mgl32.Vec3{0.2, 0.2, 1}, mgl32.Vec3{1, 0, 0}, a, b, c); ok {
		t.Errorf("parallel ray hit")
	}
	if _, ok := rayTriangle(mgl32.Vec3{0.2, 0.2, 1}, mgl32.Vec3{0, 0, 1}, a, b, c); ok {
		t.Errorf("ray pointing away hit")
	}
}

// TestDragPin presses on a pin marker and drags right and up: the pin's
// target must move right and up by the cursor's displacement in the
// plane facing the camera, and releasing must not release a drag spring.
func TestDragPin(t *testing.T) {
	s := sheetSnapshot(10)
	cam := frontCamera()
	var rec recorder
	in := NewInteraction()
	pin := s.Pins[1] // top right, (1, 1, 0)
	px, py, _ := cam.Project(pin.Pos)
	in.CursorPos(float64(px)+3, float64(py)-2, false, &cam, s, &rec) // near the marker, off the mesh
	if in.Hover != pin.Slot {
		t.Fatalf("hover: got=%d, want pin %d", in.Hover, pin.Slot)
	}
	in.MouseButton(mouseLeft, true, 0, false, &cam, s, &rec)
	if in.Dragged != pin.Slot {
		t.Fatalf("dragged: got=%d, want=%d", in.Dragged, pin.Slot)
	}
	in.CursorPos(float64(px)+3+100, float64(py)-2-50, false, &cam, s, &rec)
	c := rec.last()
	if c.Kind != CmdMovePin || c.Vertex != pin.Slot {
		t.Fatalf("command: got=%+v, want CmdMovePin of %d", c, pin.Slot)
	}
	// One pixel at the sheet's depth is 2·d·tan(fov/2)/height metres.
	perPx := 2 * float64(cam.Distance) * math.Tan(float64(cam.FovY)/2) / float64(cam.Height)
	want := [3]float64{1 + 100*perPx, 1 + 50*perPx, 0}
	got := [3]float64{c.Target.X, c.Target.Y, c.Target.Z}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 1e-3 {
			t.Errorf("target: got=%v, want=%v", got, want)
			break
		}
	}
	n := len(rec.cmds)
	in.MouseButton(mouseLeft, false, 0, false, &cam, s, &rec)
	if len(rec.cmds) != n || in.Busy() || in.Dragged != -1 {
		t.Errorf("release of a pin drag: got %d new commands, busy=%v, want none, idle", len(rec.cmds)-n, in.Busy())
	}
}

// TestDragFreeVertex drags a free vertex: CmdDrag on press and moves,
// CmdRelease on release.
func TestDragFreeVertex(t *testing.T) {
	s := sheetSnapshot(10)
	cam := frontCamera()
	var rec recorder
	in := NewInteraction()
	px, py, _ := cam.Project(mgl32.Vec3{0.5, 0.5, 0})
	in.CursorPos(float64(px), float64(py), false, &cam, s, &rec)
	in.MouseButton(mouseLeft, true, 0, false, &cam, s, &rec)
	if c := rec.last(); c.Kind != CmdDrag || c.Vertex != 60 {
		t.Fatalf("press: got=%+v, want CmdDrag of 60", c)
	}
	in.CursorPos(float64(px)-40, float64(py), false, &cam, s, &rec)
	if c := rec.last(); c.Kind != CmdDrag || !(c.Target.X < 0.5) {
		t.Errorf("move left: got=%+v, want a drag target left of 0.5", c)
	}
	in.MouseButton(mouseLeft, false, 0, false, &cam, s, &rec)
	if c := rec.last(); c.Kind != CmdRelease {
		t.Errorf("release: got=%+v, want CmdRelease", c)
	}
}

// TestDragGoesOnWhenVertexDies: a drag of a free vertex that adaptive
// coarsening removes goes on naming the vertex it began on (cloth.Sim.Drag
// follows it to the nearest vertex), with no Release; a reset ends it
// with one.
func TestDragGoesOnWhenVertexDies(t *testing.T) {
	s := sheetSnapshot(10)
	cam := frontCamera()
	var rec recorder
	in := NewInteraction()
	px, py, _ := cam.Project(mgl32.Vec3{0.5, 0.5, 0})
	in.CursorPos(float64(px), float64(py), false, &cam, s, &rec)
	in.MouseButton(mouseLeft, true, 0, false, &cam, s, &rec)
	s2 := sheetSnapshot(10)
	s2.DenseOf[60] = -1
	in.Update(s2, &rec)
	if !in.Busy() || in.Dragged != 60 || rec.last().Kind == CmdRelease {
		t.Fatalf("after the vertex died: busy=%v dragged=%d last=%+v, want the drag of 60 going on", in.Busy(), in.Dragged, rec.last())
	}
	in.CursorPos(float64(px)-40, float64(py), false, &cam, s2, &rec)
	if c := rec.last(); c.Kind != CmdDrag || c.Vertex != 60 {
		t.Errorf("move after the vertex died: got=%+v, want CmdDrag of 60", c)
	}
	s3 := sheetSnapshot(10)
	s3.Epoch = 2 // a reset
	in.Update(s3, &rec)
	if in.Busy() || in.Dragged != -1 || rec.last().Kind != CmdRelease {
		t.Errorf("after a reset: busy=%v dragged=%d last=%+v, want idle with CmdRelease", in.Busy(), in.Dragged, rec.last())
	}
}

// TestPinDragFollowsMovedPin: a remesh takes a dragged pin's vertex and
// moves the pin to a neighbour (cloth.Sim's updatePins); the drag goes on
// with that pin, and ends if the pin is gone with no new one.
func TestPinDragFollowsMovedPin(t *testing.T) {
	s := sheetSnapshot(10)
	cam := frontCamera()
	var rec recorder
	in := NewInteraction()
	pin := s.Pins[1] // slot 120, top right
	px, py, _ := cam.Project(pin.Pos)
	in.CursorPos(float64(px)+3, float64(py)-2, false, &cam, s, &rec)
	in.MouseButton(mouseLeft, true, 0, false, &cam, s, &rec)
	if in.Dragged != pin.Slot {
		t.Fatalf("dragged: got=%d, want=%d", in.Dragged, pin.Slot)
	}
	// The remesh: slot 120 gone, its pin now on 119, and a derived pin
	// on 55 farther off.
	s2 := sheetSnapshot(10)
	s2.Seq = 2
	s2.DenseOf[120] = -1
	s2.Pins = s2.Pins[:1]
	for _, v := range []int32{55, 119} {
		s2.Pins = append(s2.Pins, PinInfo{Slot: v, Dense: v, Pos: s2.Vertex(int(v)), Target: s2.Vertex(int(v))})
	}
	in.Update(s2, &rec)
	if !in.Busy() || in.Dragged != 119 {
		t.Fatalf("after the remesh: busy=%v dragged=%d, want the drag going on with pin 119", in.Busy(), in.Dragged)
	}
	in.CursorPos(float64(px)+50, float64(py)-30, false, &cam, s2, &rec)
	if c := rec.last(); c.Kind != CmdMovePin || c.Vertex != 119 {
		t.Errorf("move after the remesh: got=%+v, want CmdMovePin of 119", c)
	}
	in.Update(s2, &rec) // the same snapshot again changes nothing
	if in.Dragged != 119 {
		t.Errorf("the same snapshot again: dragged=%d, want 119", in.Dragged)
	}
	s3 := sheetSnapshot(10)
	s3.Pins = s3.Pins[:1] // pin 119 gone, none new: an undo
	in.Update(s3, &rec)
	if in.Busy() || in.Dragged != -1 {
		t.Errorf("pin gone: busy=%v dragged=%d, want idle", in.Busy(), in.Dragged)
	}
}

// TestCtrlClickTogglesPin: Ctrl+click pins a free vertex and unpins a
// pinned one, without starting a drag.
func TestCtrlClickTogglesPin(t *testing.T) {
	s := sheetSnapshot(10)
	cam := frontCamera()
	var rec recorder
	in := NewInteraction()
	px, py, _ := cam.Project(mgl32.Vec3{0.5, 0.5, 0})
	in.CursorPos(float64(px), float64(py), false, &cam, s, &rec)
	in.MouseButton(mouseLeft, true, modControl, false, &cam, s, &rec)
	if c := rec.last(); c.Kind != CmdPin || c.Vertex != 60 || in.Busy() {
		t.Errorf("ctrl-click free vertex: got=%+v busy=%v, want CmdPin of 60, idle", c, in.Busy())
	}
	in.MouseButton(mouseLeft, false, modControl, false, &cam, s, &rec)
	px, py, _ = cam.Project(s.Pins[0].Pos)
	in.CursorPos(float64(px), float64(py), false, &cam, s, &rec)
	in.MouseButton(mouseLeft, true, modControl, false, &cam, s, &rec)
	if c := rec.last(); c.Kind != CmdUnpin || c.Vertex != s.Pins[0].Slot {
		t.Errorf("ctrl-click pin: got=%+v, want CmdUnpin of %d", c, s.Pins[0].Slot)
	}
}

// TestCameraGestures: left drag on empty space orbits, right drag pans,
// the wheel zooms, and presses over a panel do nothing.
func TestCameraGestures(t *testing.T) {
	s := sheetSnapshot(4)
	var rec recorder
	in := NewInteraction()
	cam := frontCamera()
	in.CursorPos(5, 5, false, &cam, s, &rec)
	in.MouseButton(mouseLeft, true, 0, true, &cam, s, &rec) // over a panel
	if in.Busy() {
		t.Fatalf("press over a panel started a drag")
	}
	yaw := cam.Yaw
	in.MouseButton(mouseLeft, true, 0, false, &cam, s, &rec)
	in.CursorPos(55, 5, false, &cam, s, &rec)
	in.MouseButton(mouseLeft, false, 0, false, &cam, s, &rec)
	if cam.Yaw == yaw {
		t.Errorf("orbit: yaw unchanged")
	}
	target := cam.Target
	in.MouseButton(mouseRight, true, 0, false, &cam, s, &rec)
	in.CursorPos(80, 40, false, &cam, s, &rec)
	in.MouseButton(mouseRight, false, 0, false, &cam, s, &rec)
	if cam.Target == target {
		t.Errorf("pan: target unchanged")
	}
	d := cam.Distance
	in.Scroll(1, false, &cam)
	if !(cam.Distance < d) {
		t.Errorf("zoom in: distance got=%v, want < %v", cam.Distance, d)
	}
	if len(rec.cmds) != 0 {
		t.Errorf("camera gestures sent commands: %+v", rec.cmds)
	}
}

// withBall adds to s a sphere obstacle of radius r centred at c (an
// icosphere) and a ground plane square at y = −1.
func withBall(s *Snapshot, c mgl32.Vec3, r float32) {
	v, f := geom.Icosphere(2)
	ball := ObstacleInfo{Name: "ball", Kind: obstacle.Sphere, Friction: 0.3, Center: c}
	for _, p := range v {
		n := mgl32.Vec3{float32(p.X), float32(p.Y), float32(p.Z)}.Normalize()
		q := c.Add(n.Mul(r))
		ball.Pos = append(ball.Pos, q[0], q[1], q[2])
		ball.Normal = append(ball.Normal, n[0], n[1], n[2])
	}
	for _, t := range f {
		ball.Tris = append(ball.Tris, uint32(t[0]), uint32(t[1]), uint32(t[2]))
	}
	ground := ObstacleInfo{Name: "ground", Kind: obstacle.Plane}
	ground.Pos, ground.Normal, ground.Tris = planeSurface(nil, nil, nil, geom.Vec3{Y: -1}, geom.Vec3{Y: 1})
	s.Obstacles = append(s.Obstacles, ball, ground)
}

// TestShiftDragObstacle: Shift + left drag on the ball grabs it (no
// command at the press), moves it in the plane through the grabbed point
// facing the camera (CmdMoveObstacle with the offset the cursor moved the
// grabbed point by), and the release ends the drag. Shift + drag on empty
// space or on the ground plane orbits; a plain drag on the ball does not
// move it.
func TestShiftDragObstacle(t *testing.T) {
	s := sheetSnapshot(10)
	withBall(s, mgl32.Vec3{0.3, 0.3, 0.3}, 0.15)
	cam := frontCamera()
	in := NewInteraction()
	rec := &recorder{}
	px, py, _ := cam.Project(mgl32.Vec3{0.3, 0.3, 0.45}) // the ball's front
	in.CursorPos(float64(px), float64(py), false, &cam, s, rec)
	in.MouseButton(mouseLeft, true, modShift, false, &cam, s, rec)
	if in.Obstacle != 0 || in.Dragged >= 0 || len(rec.cmds) != 0 {
		t.Fatalf("Shift + press on the ball: got obstacle %d, vertex %d, commands %v, want obstacle 0 and no command", in.Obstacle, in.Dragged, rec.cmds)
	}
	// The grabbed point is the ball's front, z ≈ 0.45; moving the cursor
	// to the pixel of a point 0.2 m right and 0.1 m up in that plane
	// moves the ball by (0.2, 0.1, 0).
	hit := mgl32.Vec3{0.3, 0.3, 0.45}
	for _, want := range []mgl32.Vec3{{0.2, 0.1, 0}, {0.25, -0.05, 0}} {
		qx, qy, _ := cam.Project(hit.Add(want))
		in.CursorPos(float64(qx), float64(qy), false, &cam, s, rec)
		c := rec.last()
		if c.Kind != CmdMoveObstacle || c.Obstacle != 0 {
			t.Fatalf("drag: got %+v, want CmdMoveObstacle of obstacle 0", c)
		}
		if got := (mgl32.Vec3{float32(c.Target.X), float32(c.Target.Y), float32(c.Target.Z)}); got.Sub(want).Len() > 2e-3 {
			t.Errorf("drag offset: got=%v, want=%v", got, want)
		}
	}
	n := len(rec.cmds)
	in.MouseButton(mouseLeft, false, 0, false, &cam, s, rec)
	if in.Obstacle != -1 || in.Busy() || len(rec.cmds) != n {
		t.Errorf("release: got obstacle %d, busy %v, %d new commands, want −1, idle, none", in.Obstacle, in.Busy(), len(rec.cmds)-n)
	}

	// An obstacle drag from an earlier snapshot already held offset
	// (0.1, 0, 0): the new drag adds to it.
	s.Obstacles[0].Offset = [3]float32{0.1, 0, 0}
	in.CursorPos(float64(px), float64(py), false, &cam, s, rec)
	in.MouseButton(mouseLeft, true, modShift, false, &cam, s, rec)
	qx, qy, _ := cam.Project(hit.Add(mgl32.Vec3{0, 0.1, 0}))
	in.CursorPos(float64(qx), float64(qy), false, &cam, s, rec)
	if c := rec.last(); c.Kind != CmdMoveObstacle || math.Abs(c.Target.X-0.1) > 2e-3 || math.Abs(c.Target.Y-0.1) > 2e-3 {
		t.Errorf("second drag: got %+v, want the offset (0.1, 0.1, 0)", c)
	}
	// A new scene (epoch) ends the drag.
	s.Epoch++
	in.Update(s, rec)
	if in.Obstacle != -1 || in.Busy() {
		t.Errorf("after a scene change: obstacle %d, busy %v, want −1, idle", in.Obstacle, in.Busy())
	}
	in.MouseButton(mouseLeft, false, 0, false, &cam, s, rec)

	// Shift + drag where no solid obstacle is (the sheet's corner, and
	// below it the ground plane) orbits and sends nothing.
	for _, p := range []mgl32.Vec3{{0.9, 0.9, 0}, {0.9, -1, 0.5}} {
		ex, ey, _ := cam.Project(p)
		n, yaw := len(rec.cmds), cam.Yaw
		in.CursorPos(float64(ex), float64(ey), false, &cam, s, rec)
		in.MouseButton(mouseLeft, true, modShift, false, &cam, s, rec)
		in.CursorPos(float64(ex)+30, float64(ey), false, &cam, s, rec)
		in.MouseButton(mouseLeft, false, 0, false, &cam, s, rec)
		if in.Obstacle != -1 || len(rec.cmds) != n || cam.Yaw == yaw {
			t.Errorf("Shift + drag at %v: obstacle %d, %d commands, yaw %v → %v; want an orbit and no command", p, in.Obstacle, len(rec.cmds)-n, yaw, cam.Yaw)
		}
	}
	cam = frontCamera()

	// Without Shift the ball is not grabbed (the press picks the cloth).
	n = len(rec.cmds)
	in.CursorPos(float64(px), float64(py), false, &cam, s, rec)
	in.MouseButton(mouseLeft, true, 0, false, &cam, s, rec)
	in.CursorPos(float64(px)+20, float64(py), false, &cam, s, rec)
	for _, c := range rec.cmds[n:] {
		if c.Kind == CmdMoveObstacle {
			t.Errorf("plain drag on the ball sent %+v", c)
		}
	}
	in.MouseButton(mouseLeft, false, 0, false, &cam, s, rec)
}

// TestSendCoalescesObstacleMoves: a fast mouse queues one move per
// obstacle, the newest.
func TestSendCoalescesObstacleMoves(t *testing.T) {
	l := &Loop{wake: make(chan struct{}, 1)}
	for i := range 5 {
		l.Send(Command{Kind: CmdMoveObstacle, Obstacle: 0, Target: geom.Vec3{X: float64(i)}})
	}
	l.Send(Command{Kind: CmdMoveObstacle, Obstacle: 1, Target: geom.Vec3{Y: 1}})
	l.Send(Command{Kind: CmdMoveObstacle, Obstacle: 1, Target: geom.Vec3{Y: 2}})
	if len(l.queue) != 2 || l.queue[0].Target.X != 4 || l.queue[1].Target.Y != 2 {
		t.Errorf("queue: got %+v, want the last move of obstacle 0 and of obstacle 1", l.queue)
	}
}
