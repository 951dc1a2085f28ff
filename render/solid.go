package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"drape/shaders"
)

// Solid is one obstacle surface to draw (a sphere, a box, a table, a
// mesh), in world coordinates, with the cloth's shading and one colour.
type Solid struct {
	Pos    []float32 // vertex i at Pos[3*i : 3*i+3], world units
	Normal []float32 // unit normal of vertex i; same length as Pos
	Tris   []uint32  // face f's vertices at Tris[3*f : 3*f+3]
	Color  mgl32.Vec3
	// OneSided draws the faces only from the side they wind
	// counter-clockwise on (a floor: seen from below it is not drawn, so
	// the cloth above it stays in view, as through Blender's floor grid).
	OneSided bool
}

// SolidRenderer draws the obstacles: opaque, lit like the cloth (the same
// shader with a flat colour), two-sided so that open meshes look right
// from behind (but for a OneSided solid). Create it with NewSolidRenderer
// after the context is current; release it with Delete.
type SolidRenderer struct {
	prog             *program
	vao              uint32
	pos, normal, idx buffer
	draws            []solidDraw

	// Concatenation scratch, reused between uploads.
	allPos, allNormal []float32
	allTris           []uint32
}

type solidDraw struct {
	first, count int32 // element range
	color        mgl32.Vec3
	oneSided     bool
}

// NewSolidRenderer compiles its program and creates its vertex array.
func NewSolidRenderer() (*SolidRenderer, error) {
	p, err := newProgram("solid", shaders.ClothVert, shaders.ClothFrag)
	if err != nil {
		return nil, err
	}
	r := &SolidRenderer{prog: p}
	saved := saveGLState()
	defer saved.restore()
	for _, b := range []*buffer{&r.pos, &r.normal, &r.idx} {
		gl.GenBuffers(1, &b.id)
	}
	gl.GenVertexArrays(1, &r.vao)
	gl.BindVertexArray(r.vao)
	attrib(0, 3, r.pos.id, 0, 0)
	attrib(1, 3, r.normal.id, 0, 0)
	gl.DisableVertexAttribArray(2)
	gl.VertexAttrib1f(2, 0) // no scalar: ColorMapNone
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.idx.id)
	gl.BindVertexArray(0)
	if err := CheckGLError(); err != nil {
		r.Delete()
		return nil, fmt.Errorf("creating solid renderer: %w", err)
	}
	return r, nil
}

// Upload copies the solids into one set of GPU buffers. It returns an
// error, and keeps the previous solids, when one is inconsistent.
func (r *SolidRenderer) Upload(solids []Solid) error {
	r.allPos, r.allNormal, r.allTris = r.allPos[:0], r.allNormal[:0], r.allTris[:0]
	draws := r.draws[:0]
	for k, s := range solids {
		if err := (Mesh{Pos: s.Pos, Normal: s.Normal, Tris: s.Tris}).Validate(); err != nil {
			return fmt.Errorf("solid %d: %w", k, err)
		}
		base := uint32(len(r.allPos) / 3)
		first := int32(len(r.allTris))
		r.allPos = append(r.allPos, s.Pos...)
		r.allNormal = append(r.allNormal, s.Normal...)
		for _, v := range s.Tris {
			r.allTris = append(r.allTris, base+v)
		}
		draws = append(draws, solidDraw{first, int32(len(s.Tris)), s.Color, s.OneSided})
	}
	r.draws = draws
	saved := saveGLState()
	defer saved.restore()
	gl.BindVertexArray(r.vao)
	r.pos.upload(gl.ARRAY_BUFFER, 4*len(r.allPos), ptr(r.allPos))
	r.normal.upload(gl.ARRAY_BUFFER, 4*len(r.allNormal), ptr(r.allNormal))
	r.idx.upload(gl.ELEMENT_ARRAY_BUFFER, 4*len(r.allTris), ptr(r.allTris))
	return nil
}

// Draw draws the uploaded solids with o's matrices and light (o's colour
// map and cloth colours are not used) and o's contact shadow, if any,
// with depth test and write, and restores the GL state it changed. Draw
// them before the cloth.
func (r *SolidRenderer) Draw(o DrawOptions) {
	if len(r.draws) == 0 {
		return
	}
	saved := saveGLState()
	defer saved.restore()
	model := mgl32.Ident4()
	viewProj := o.Projection.Mul4(o.View)
	eye := o.View.Inv().Col(3).Vec3()
	light := o.LightDir
	if light.Len() == 0 {
		light = mgl32.Vec3{0, 1, 0}
	}
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(true)
	gl.CullFace(gl.BACK)
	gl.FrontFace(gl.CCW)
	gl.Disable(gl.BLEND)
	gl.Disable(gl.SCISSOR_TEST)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	// Pushed back a little, so that cloth resting on a face at the
	// contact thickness wins the depth test where the two nearly meet.
	gl.Enable(gl.POLYGON_OFFSET_FILL)
	gl.PolygonOffset(1, 2)
	p := r.prog
	gl.UseProgram(p.id)
	gl.UniformMatrix4fv(p.loc("uModel"), 1, false, &model[0])
	gl.UniformMatrix4fv(p.loc("uViewProj"), 1, false, &viewProj[0])
	gl.Uniform3fv(p.loc("uEye"), 1, &eye[0])
	gl.Uniform3fv(p.loc("uLightDir"), 1, &light[0])
	gl.Uniform1i(p.loc("uColorMap"), int32(ColorMapNone))
	gl.Uniform1i(p.loc("uFabric"), 0)
	o.Shadow.bind(p)
	gl.BindVertexArray(r.vao)
	for _, d := range r.draws {
		c := d.color
		back := c.Mul(0.8)
		gl.Uniform3fv(p.loc("uFrontColor"), 1, &c[0])
		gl.Uniform3fv(p.loc("uBackColor"), 1, &back[0])
		setEnabled(gl.CULL_FACE, d.oneSided)
		gl.DrawElementsWithOffset(gl.TRIANGLES, d.count, gl.UNSIGNED_INT, uintptr(4*d.first))
	}
	gl.Disable(gl.POLYGON_OFFSET_FILL)
}

// Delete releases the GL objects. The renderer must not be used after.
func (r *SolidRenderer) Delete() {
	r.prog.delete()
	for _, b := range []*buffer{&r.pos, &r.normal, &r.idx} {
		if b.id != 0 {
			gl.DeleteBuffers(1, &b.id)
			b.id, b.capacity = 0, 0
		}
	}
	if r.vao != 0 {
		gl.DeleteVertexArrays(1, &r.vao)
		r.vao = 0
	}
}
