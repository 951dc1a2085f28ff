package render

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"drape/shaders"
)

// Mesh is one frame of cloth geometry as plain slices. The renderer copies
// it to GPU buffers in Upload and keeps no reference, so the slices may be
// reused (or released back to a snapshot pool) as soon as Upload returns.
type Mesh struct {
	Pos     []float32 // vertex i at Pos[3*i : 3*i+3], world units
	Normal  []float32 // unit normal of vertex i at Normal[3*i : 3*i+3]; same length as Pos
	Scalar  []float32 // scalar of vertex i at Scalar[i] (e.g. mean curvature, 1/m); nil means all 0
	Tris    []uint32  // face f's vertices at Tris[3*f : 3*f+3], indices into Pos
	FaceGen []uint8   // refinement generation of face f at FaceGen[f]; nil means all 0
}

// Validate returns an error describing the first inconsistency between the
// slice lengths, or an index out of range, or nil.
func (m Mesh) Validate() error {
	if len(m.Pos)%3 != 0 {
		return fmt.Errorf("mesh: len(Pos)=%d is not a multiple of 3", len(m.Pos))
	}
	nv := len(m.Pos) / 3
	if len(m.Normal) != len(m.Pos) {
		return fmt.Errorf("mesh: len(Normal)=%d, want len(Pos)=%d", len(m.Normal), len(m.Pos))
	}
	if m.Scalar != nil && len(m.Scalar) != nv {
		return fmt.Errorf("mesh: len(Scalar)=%d, want %d vertices", len(m.Scalar), nv)
	}
	if len(m.Tris)%3 != 0 {
		return fmt.Errorf("mesh: len(Tris)=%d is not a multiple of 3", len(m.Tris))
	}
	nf := len(m.Tris) / 3
	if m.FaceGen != nil && len(m.FaceGen) != nf {
		return fmt.Errorf("mesh: len(FaceGen)=%d, want %d faces", len(m.FaceGen), nf)
	}
	for k, v := range m.Tris {
		if int(v) >= nv {
			return fmt.Errorf("mesh: Tris[%d]=%d out of range (%d vertices)", k, v, nv)
		}
	}
	return nil
}

// ColorMap selects how the cloth's per-vertex scalar becomes a colour.
type ColorMap int32

const (
	// ColorMapNone ignores the scalar and uses the flat front/back colours.
	ColorMapNone ColorMap = 0
	// ColorMapCoolWarm is Moreland's diverging blue-white-red map, for
	// signed quantities such as mean curvature (put 0 mid-range).
	ColorMapCoolWarm ColorMap = 1
	// ColorMapViridis is the perceptually uniform sequential viridis map.
	ColorMapViridis ColorMap = 2
)

// PinState is how a pin marker is highlighted.
type PinState uint8

const (
	// PinIdle is a pinned vertex nobody is touching.
	PinIdle PinState = 0
	// PinHovered is the pin under the cursor.
	PinHovered PinState = 1
	// PinDragged is the pin being dragged.
	PinDragged PinState = 2
)

// Pin is one marker to draw.
type Pin struct {
	Pos   mgl32.Vec3 // world position
	State PinState
}

// DrawOptions says how ClothRenderer.Draw draws a frame. Start from
// DefaultDrawOptions and change fields.
type DrawOptions struct {
	Model      mgl32.Mat4 // object-to-world transform of the cloth; the zero matrix means identity
	View       mgl32.Mat4 // world-to-eye, e.g. Camera.View
	Projection mgl32.Mat4 // eye-to-clip, e.g. Camera.Projection

	LightDir mgl32.Vec3 // direction towards the key light, world space; need not be unit

	ColorMap   ColorMap   // how Mesh.Scalar becomes colour
	RangeMin   float32    // scalar at the low end of ColorMap
	RangeMax   float32    // scalar at the high end; RangeMin == RangeMax maps everything mid-range
	FrontColor mgl32.Vec3 // linear RGB in [0,1] of the front side for ColorMapNone
	BackColor  mgl32.Vec3 // linear RGB in [0,1] of the back side for ColorMapNone

	// Fabric draws the cloth as fabric, for videos: FrontColor and
	// BackColor (ColorMap is ignored) lit two-sided with the diffuse
	// term wrapped past the terminator, a weak broad highlight and a
	// sheen at grazing angles (shaders/cloth.frag.glsl).
	Fabric bool
	// Shadow, when not nil and updated (ContactShadow.Update), darkens
	// the obstacles under and next to the cloth (SolidRenderer.Draw).
	Shadow *ContactShadow

	Wireframe      bool       // draw triangle edges over the surface
	WireframeByGen bool       // colour edges by their face's refinement generation (GenerationColors)
	WireColor      mgl32.Vec4 // RGBA of edges (and of generation 0 when WireframeByGen)

	ShowPins bool    // draw Pins
	Pins     []Pin   // markers, drawn on top of everything
	PinSize  float32 // marker diameter in framebuffer pixels (multiply by the content scale on HiDPI)

	Grid        bool    // draw the ground grid in the plane y = GridY
	GridY       float32 // height of the ground plane, world units
	GridSpacing float32 // distance between grid lines, world units, > 0
	GridExtent  float32 // half-size of the grid square around the origin, world units; lines fade out towards it
}

// GenerationColors are the wireframe colours of refinement generations
// 1..6 (WireframeByGen; generation 0 keeps WireColor): the Okabe-Ito
// palette, which stays distinct for colour-blind viewers and on light and
// dark shading alike. Generation g > 6 takes colour (g−1) mod 6.
var GenerationColors = [6][3]float32{
	{0.902, 0.624, 0.000}, // orange
	{0.337, 0.706, 0.914}, // sky blue
	{0.000, 0.620, 0.451}, // bluish green
	{0.941, 0.894, 0.259}, // yellow
	{0.835, 0.369, 0.000}, // vermillion
	{0.800, 0.475, 0.655}, // reddish purple
}

// DefaultDrawOptions returns identity matrices, a key light from above and
// in front, the cool-warm map over [−1, 1], a subtle dark wireframe (off),
// pins on at 12 px and a 4 m ground grid with 10 cm spacing at y = 0.
func DefaultDrawOptions() DrawOptions {
	return DrawOptions{
		Model:       mgl32.Ident4(),
		View:        mgl32.Ident4(),
		Projection:  mgl32.Ident4(),
		LightDir:    mgl32.Vec3{0.4, 1.0, 0.6},
		ColorMap:    ColorMapCoolWarm,
		RangeMin:    -1,
		RangeMax:    1,
		FrontColor:  mgl32.Vec3{0.80, 0.62, 0.45},
		BackColor:   mgl32.Vec3{0.55, 0.60, 0.70},
		WireColor:   mgl32.Vec4{0.05, 0.05, 0.06, 0.18},
		ShowPins:    true,
		PinSize:     12,
		Grid:        true,
		GridSpacing: 0.1,
		GridExtent:  2,
	}
}

// buffer is a GL buffer object whose storage is reused while uploads fit.
type buffer struct {
	id       uint32
	capacity int // bytes of storage allocated
}

// upload copies n bytes at p into the buffer bound to target. Storage is
// reallocated (with 50% slack) only when it is too small; otherwise it is
// orphaned (glBufferData with nil) and refilled with glBufferSubData, so
// the driver never stalls on a buffer the GPU is still reading.
func (b *buffer) upload(target uint32, n int, p unsafe.Pointer) {
	gl.BindBuffer(target, b.id)
	if n == 0 {
		return
	}
	if n > b.capacity {
		b.capacity = n + n/2
	}
	gl.BufferData(target, b.capacity, nil, gl.STREAM_DRAW)
	gl.BufferSubData(target, 0, n, p)
}

// ClothRenderer owns the GL objects that draw the cloth surface, its
// wireframe, the ground grid, the pin markers and the background. Create it
// with NewClothRenderer after the context is current; release it with
// Delete.
type ClothRenderer struct {
	cloth, wire, lines, points, bg *program

	clothVAO                  uint32
	pos, normal, scalar, elem buffer
	numIndices                int32

	wireVAO   uint32
	wireBuf   buffer
	wireData  []float32 // 6 vertices per face, each x, y, z, generation
	wireVerts int32

	gridVAO   uint32
	gridBuf   buffer
	gridKey   [3]float32 // GridY, GridSpacing, GridExtent the buffer was built for
	gridVerts int32

	pinVAO  uint32
	pinBuf  buffer
	pinData []float32 // x, y, z, state per pin

	emptyVAO uint32 // for the buffer-less background triangle

	zeroScalar []float32 // reused when Mesh.Scalar is nil
}

// NewClothRenderer compiles the scene shaders and creates the vertex
// arrays. It returns an error carrying the info log if a shader fails.
func NewClothRenderer() (*ClothRenderer, error) {
	r := &ClothRenderer{}
	var err error
	for _, p := range []struct {
		dst        **program
		name       string
		vert, frag string
	}{
		{&r.cloth, "cloth", shaders.ClothVert, shaders.ClothFrag},
		{&r.wire, "wireframe", shaders.WireVert, shaders.WireFrag},
		{&r.lines, "lines", shaders.LinesVert, shaders.LinesFrag},
		{&r.points, "points", shaders.PointsVert, shaders.PointsFrag},
		{&r.bg, "background", shaders.BackgroundVert, shaders.BackgroundFrag},
	} {
		if *p.dst, err = newProgram(p.name, p.vert, p.frag); err != nil {
			r.Delete()
			return nil, err
		}
	}

	saved := saveGLState()
	defer saved.restore()

	for _, b := range []*buffer{&r.pos, &r.normal, &r.scalar, &r.elem, &r.wireBuf, &r.gridBuf, &r.pinBuf} {
		gl.GenBuffers(1, &b.id)
	}
	gl.GenVertexArrays(1, &r.clothVAO)
	gl.BindVertexArray(r.clothVAO)
	attrib(0, 3, r.pos.id, 0, 0)
	attrib(1, 3, r.normal.id, 0, 0)
	attrib(2, 1, r.scalar.id, 0, 0)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.elem.id)

	gl.GenVertexArrays(1, &r.wireVAO)
	gl.BindVertexArray(r.wireVAO)
	attrib(0, 3, r.wireBuf.id, 16, 0)
	attrib(1, 1, r.wireBuf.id, 16, 12)

	gl.GenVertexArrays(1, &r.gridVAO)
	gl.BindVertexArray(r.gridVAO)
	attrib(0, 3, r.gridBuf.id, 28, 0)
	attrib(1, 4, r.gridBuf.id, 28, 12)

	gl.GenVertexArrays(1, &r.pinVAO)
	gl.BindVertexArray(r.pinVAO)
	attrib(0, 3, r.pinBuf.id, 16, 0)
	attrib(1, 1, r.pinBuf.id, 16, 12)

	gl.GenVertexArrays(1, &r.emptyVAO)
	gl.BindVertexArray(0)
	if err := CheckGLError(); err != nil {
		r.Delete()
		return nil, fmt.Errorf("creating cloth renderer: %w", err)
	}
	return r, nil
}

// attrib enables float vertex attribute loc with size components read
// from buffer buf at the given stride and offset (bytes) for the bound VAO.
func attrib(loc uint32, size int32, buf uint32, stride int32, offset uintptr) {
	gl.BindBuffer(gl.ARRAY_BUFFER, buf)
	gl.EnableVertexAttribArray(loc)
	gl.VertexAttribPointerWithOffset(loc, size, gl.FLOAT, false, stride, offset)
}

// Upload copies m into GPU buffers and rebuilds the wireframe line list.
// It returns m.Validate's error (and draws the previous mesh) when the
// slices are inconsistent.
func (r *ClothRenderer) Upload(m Mesh) error {
	if err := m.Validate(); err != nil {
		return err
	}
	nv := len(m.Pos) / 3
	scalar := m.Scalar
	if scalar == nil {
		if cap(r.zeroScalar) < nv {
			r.zeroScalar = make([]float32, nv)
		}
		scalar = r.zeroScalar[:nv]
	}

	saved := saveGLState()
	defer saved.restore()
	gl.BindVertexArray(r.clothVAO)
	r.pos.upload(gl.ARRAY_BUFFER, 4*len(m.Pos), ptr(m.Pos))
	r.normal.upload(gl.ARRAY_BUFFER, 4*len(m.Normal), ptr(m.Normal))
	r.scalar.upload(gl.ARRAY_BUFFER, 4*len(scalar), ptr(scalar))
	r.elem.upload(gl.ELEMENT_ARRAY_BUFFER, 4*len(m.Tris), ptr(m.Tris))
	r.numIndices = int32(len(m.Tris))

	// Wireframe: each face's three edges as separate line segments carrying
	// the face's generation, so colours need no adjacency. Interior edges
	// are drawn twice; the depth test makes that invisible.
	nf := len(m.Tris) / 3
	need := nf * 6 * 4
	if cap(r.wireData) < need {
		r.wireData = make([]float32, need)
	}
	w := r.wireData[:need]
	k := 0
	for f := 0; f < nf; f++ {
		var g float32
		if m.FaceGen != nil {
			g = float32(m.FaceGen[f])
		}
		t := m.Tris[3*f : 3*f+3]
		for e := 0; e < 3; e++ {
			for _, v := range [2]uint32{t[e], t[(e+1)%3]} {
				p := m.Pos[3*v : 3*v+3]
				w[k], w[k+1], w[k+2], w[k+3] = p[0], p[1], p[2], g
				k += 4
			}
		}
	}
	gl.BindVertexArray(r.wireVAO)
	r.wireBuf.upload(gl.ARRAY_BUFFER, 4*len(w), ptr(w))
	r.wireVerts = int32(nf * 6)
	return nil
}

// ptr returns a pointer to the first element of s, or nil if s is empty.
func ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// DrawBackground fills the current viewport with a vertical gradient from
// bottom to top (linear RGB in [0,1]) and clears the depth buffer. Call it
// first in a frame, instead of glClear.
func (r *ClothRenderer) DrawBackground(top, bottom mgl32.Vec3) {
	saved := saveGLState()
	defer saved.restore()
	gl.DepthMask(true)
	gl.Clear(gl.DEPTH_BUFFER_BIT)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.SCISSOR_TEST)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.UseProgram(r.bg.id)
	gl.Uniform3fv(r.bg.loc("uTop"), 1, &top[0])
	gl.Uniform3fv(r.bg.loc("uBottom"), 1, &bottom[0])
	gl.BindVertexArray(r.emptyVAO)
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
}

// Draw draws the last uploaded mesh, its wireframe, the grid and the pins
// into the current framebuffer and viewport with depth testing, then
// restores the GL state it changed.
func (r *ClothRenderer) Draw(o DrawOptions) {
	saved := saveGLState()
	defer saved.restore()

	model := o.Model
	if model == (mgl32.Mat4{}) {
		model = mgl32.Ident4()
	}
	viewProj := o.Projection.Mul4(o.View)
	// The eye is the translation of the inverse view matrix.
	eye := o.View.Inv().Col(3).Vec3()
	light := o.LightDir
	if light.Len() == 0 {
		light = mgl32.Vec3{0, 1, 0}
	}

	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(true)
	gl.Disable(gl.CULL_FACE) // cloth is two-sided
	gl.Disable(gl.SCISSOR_TEST)
	gl.Disable(gl.BLEND)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)

	// Fill pass. With a wireframe on top, push the surface back a little
	// so the coplanar lines win the depth test.
	if r.numIndices > 0 {
		setEnabled(gl.POLYGON_OFFSET_FILL, o.Wireframe)
		gl.PolygonOffset(1, 1)
		p := r.cloth
		gl.UseProgram(p.id)
		gl.UniformMatrix4fv(p.loc("uModel"), 1, false, &model[0])
		gl.UniformMatrix4fv(p.loc("uViewProj"), 1, false, &viewProj[0])
		gl.Uniform3fv(p.loc("uEye"), 1, &eye[0])
		gl.Uniform3fv(p.loc("uLightDir"), 1, &light[0])
		gl.Uniform1i(p.loc("uColorMap"), int32(o.ColorMap))
		gl.Uniform1f(p.loc("uRangeMin"), o.RangeMin)
		gl.Uniform1f(p.loc("uRangeMax"), o.RangeMax)
		gl.Uniform3fv(p.loc("uFrontColor"), 1, &o.FrontColor[0])
		gl.Uniform3fv(p.loc("uBackColor"), 1, &o.BackColor[0])
		gl.Uniform1i(p.loc("uFabric"), boolInt(o.Fabric && o.ColorMap == ColorMapNone))
		gl.Uniform1i(p.loc("uShadowOn"), 0)
		gl.BindVertexArray(r.clothVAO)
		gl.DrawElementsWithOffset(gl.TRIANGLES, r.numIndices, gl.UNSIGNED_INT, 0)
		gl.Disable(gl.POLYGON_OFFSET_FILL)
	}

	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	// Colour blends "over"; destination alpha stays 1 (ONE, 1−αs), so a
	// readback of the framebuffer is opaque.
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	gl.DepthMask(false)

	// Line pass over the surface.
	if o.Wireframe && r.wireVerts > 0 {
		p := r.wire
		gl.UseProgram(p.id)
		gl.UniformMatrix4fv(p.loc("uModel"), 1, false, &model[0])
		gl.UniformMatrix4fv(p.loc("uViewProj"), 1, false, &viewProj[0])
		gl.Uniform1i(p.loc("uByGen"), boolInt(o.WireframeByGen))
		gl.Uniform4fv(p.loc("uColor"), 1, &o.WireColor[0])
		gl.Uniform3fv(p.loc("uPalette"), int32(len(GenerationColors)), &GenerationColors[0][0])
		gl.BindVertexArray(r.wireVAO)
		gl.DrawArrays(gl.LINES, 0, r.wireVerts)
	}

	if o.Grid && o.GridSpacing > 0 && o.GridExtent > 0 {
		r.drawGrid(o, viewProj)
	}

	if o.ShowPins && len(o.Pins) > 0 {
		r.drawPins(o, viewProj)
	}
}

// drawGrid draws the ground grid, rebuilding its vertex buffer when the
// grid parameters change.
func (r *ClothRenderer) drawGrid(o DrawOptions, viewProj mgl32.Mat4) {
	key := [3]float32{o.GridY, o.GridSpacing, o.GridExtent}
	if key != r.gridKey || r.gridVerts == 0 {
		data := gridLines(o.GridY, o.GridSpacing, o.GridExtent)
		gl.BindVertexArray(r.gridVAO)
		r.gridBuf.upload(gl.ARRAY_BUFFER, 4*len(data), ptr(data))
		r.gridVerts = int32(len(data) / 7)
		r.gridKey = key
	}
	p := r.lines
	gl.UseProgram(p.id)
	gl.UniformMatrix4fv(p.loc("uViewProj"), 1, false, &viewProj[0])
	center := mgl32.Vec3{0, o.GridY, 0}
	gl.Uniform3fv(p.loc("uCenter"), 1, &center[0])
	gl.Uniform1f(p.loc("uFadeStart"), 0.45*o.GridExtent)
	gl.Uniform1f(p.loc("uFadeEnd"), o.GridExtent)
	gl.BindVertexArray(r.gridVAO)
	gl.DrawArrays(gl.LINES, 0, r.gridVerts)
}

// gridLines returns a line list (x, y, z, r, g, b, a per vertex) for a
// square grid of half-size extent at height y: minor lines every spacing,
// brighter major lines every fifth, and the X (red) and Z (blue) axes.
// The number of lines per direction is capped at 801.
func gridLines(y, spacing, extent float32) []float32 {
	n := int(math.Floor(float64(extent / spacing)))
	n = min(n, 400)
	extent = float32(n) * spacing
	minor := [4]float32{0.55, 0.57, 0.62, 0.22}
	major := [4]float32{0.65, 0.67, 0.72, 0.42}
	xAxis := [4]float32{0.85, 0.33, 0.30, 0.70}
	zAxis := [4]float32{0.30, 0.50, 0.90, 0.70}
	data := make([]float32, 0, (2*n+1)*2*2*7)
	add := func(a, b mgl32.Vec3, c [4]float32) {
		data = append(data, a[0], a[1], a[2], c[0], c[1], c[2], c[3])
		data = append(data, b[0], b[1], b[2], c[0], c[1], c[2], c[3])
	}
	for i := -n; i <= n; i++ {
		t := float32(i) * spacing
		c := minor
		if i%5 == 0 {
			c = major
		}
		cx, cz := c, c
		if i == 0 {
			cx, cz = zAxis, xAxis // the line x=0 is the Z axis, z=0 the X axis
		}
		add(mgl32.Vec3{t, y, -extent}, mgl32.Vec3{t, y, extent}, cx)
		add(mgl32.Vec3{-extent, y, t}, mgl32.Vec3{extent, y, t}, cz)
	}
	return data
}

// drawPins draws o.Pins as screen-space discs on top of the scene.
func (r *ClothRenderer) drawPins(o DrawOptions, viewProj mgl32.Mat4) {
	r.pinData = r.pinData[:0]
	for _, pin := range o.Pins {
		r.pinData = append(r.pinData, pin.Pos[0], pin.Pos[1], pin.Pos[2], float32(pin.State))
	}
	gl.BindVertexArray(r.pinVAO)
	r.pinBuf.upload(gl.ARRAY_BUFFER, 4*len(r.pinData), ptr(r.pinData))
	size := o.PinSize
	if size <= 0 {
		size = 12
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Enable(gl.PROGRAM_POINT_SIZE)
	p := r.points
	gl.UseProgram(p.id)
	gl.UniformMatrix4fv(p.loc("uViewProj"), 1, false, &viewProj[0])
	gl.Uniform1f(p.loc("uSize"), size)
	gl.DrawArrays(gl.POINTS, 0, int32(len(o.Pins)))
}

// boolInt returns 1 for true and 0 for false, for bool uniforms.
func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Delete releases all GL objects. The renderer must not be used after.
func (r *ClothRenderer) Delete() {
	for _, p := range []*program{r.cloth, r.wire, r.lines, r.points, r.bg} {
		p.delete()
	}
	for _, b := range []*buffer{&r.pos, &r.normal, &r.scalar, &r.elem, &r.wireBuf, &r.gridBuf, &r.pinBuf} {
		if b.id != 0 {
			gl.DeleteBuffers(1, &b.id)
			b.id, b.capacity = 0, 0
		}
	}
	for _, v := range []*uint32{&r.clothVAO, &r.wireVAO, &r.gridVAO, &r.pinVAO, &r.emptyVAO} {
		if *v != 0 {
			gl.DeleteVertexArrays(1, v)
			*v = 0
		}
	}
}
