package render

import (
	"fmt"
	"math"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"drape/shaders"
)

// ContactShadow darkens the obstacles and the ground where the cloth lies
// on them or hangs close above, so that contact reads in the fabric look:
// ambient occlusion by the cloth under a sky straight above, which stays
// put as the camera (and with it the key light) moves. A surface point p
// is darkened by
//
//	occlusion(p) = Strength · min(1, Σ_q G(p − q) · exp(−(h(q) − p.y)/Falloff))
//
// where q runs over the horizontal plane, h(q) is the height of the lowest
// cloth over q (no cloth contributes 0) and G is a Gaussian of standard
// deviation Radius/2: cloth lying on a surface (h − y ≈ the contact
// thickness) darkens it by nearly Strength, the Gaussian spreads that
// about Radius beyond the cloth's edge as a soft penumbra, and cloth
// hanging 3·Falloff above leaves 5% of it. The clamp bounds what cloth
// lower than p (a skirt hanging beside a table's edge) adds.
//
// Because exp(−(h − y)/λ) = exp(−(h − h₀)/λ) · exp((y − h₀)/λ), the sum
// is one blurred map for every receiver height: Update renders the cloth
// from straight above into a size×size R32F map of E = exp(−(h − h₀)/λ)
// over the cloth's horizontal bounds (h₀ its lowest point), blended with
// GL_MAX so the lowest layer wins (the triangles' edges are drawn as
// lines too, so a cloth standing on edge, a sliver from above, still
// leaves a trace), then blurs it with two separable Gaussian passes. A
// receiving fragment reads Ē with one bilinear fetch and multiplies by
// exp((y − h₀)/λ). Everything is GL 3.0 core (float colour targets,
// GL_MAX blending, filtered R32F textures), so Mesa's llvmpipe draws it
// as a GPU does, and cheaply: three passes over 256² texels per frame.
type ContactShadow struct {
	height, blur *program
	fbo, tex     [3]uint32 // 0: E of the lowest cloth; 1: blurred along x; 2: blurred along x and z, sampled bilinearly
	emptyVAO     uint32
	size         int32
	rect         [4]float32 // x0, z0, 1/width, 1/depth of the area mapped, 1/m
	h0           float32    // reference height h₀, m
	valid        bool

	Radius   float32 // penumbra width beyond the cloth's edge, 2σ of the Gaussian, m
	Falloff  float32 // λ: height above a surface over which the occlusion fades by 1/e, m
	Strength float32 // largest darkening, in [0, 1]
}

// NewContactShadow creates the maps of size×size texels and the
// programs. It leaves the bound framebuffers and texture as it found them.
func NewContactShadow(size int) (*ContactShadow, error) {
	if size < 2 {
		return nil, fmt.Errorf("contact shadow: size %d, want at least 2", size)
	}
	s := &ContactShadow{size: int32(size), Radius: 0.1, Falloff: 0.2, Strength: 0.7}
	var err error
	if s.height, err = newProgram("height map", shaders.HeightmapVert, shaders.HeightmapFrag); err != nil {
		return nil, err
	}
	if s.blur, err = newProgram("blur", shaders.BackgroundVert, shaders.BlurFrag); err != nil {
		s.Delete()
		return nil, err
	}
	saved := saveGLState()
	defer saved.restore()
	defer restoreFramebuffers()()
	gl.GenVertexArrays(1, &s.emptyVAO)
	gl.ActiveTexture(gl.TEXTURE0)
	for i := range s.tex {
		gl.GenTextures(1, &s.tex[i])
		gl.BindTexture(gl.TEXTURE_2D, s.tex[i])
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R32F, s.size, s.size, 0, gl.RED, gl.FLOAT, nil)
		filter := int32(gl.NEAREST)
		if i == 2 {
			filter = gl.LINEAR
		}
		for _, pn := range [][2]int32{{gl.TEXTURE_MIN_FILTER, filter}, {gl.TEXTURE_MAG_FILTER, filter},
			{gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE}, {gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE}} {
			gl.TexParameteri(gl.TEXTURE_2D, uint32(pn[0]), pn[1])
		}
		gl.GenFramebuffers(1, &s.fbo[i])
		gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo[i])
		gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, s.tex[i], 0)
		if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			s.Delete()
			return nil, fmt.Errorf("contact shadow: %dx%d R32F framebuffer incomplete: status 0x%x", size, size, st)
		}
	}
	if err := CheckGLError(); err != nil {
		s.Delete()
		return nil, fmt.Errorf("creating contact shadow: %w", err)
	}
	return s, nil
}

// restoreFramebuffers returns a function that binds the draw and read
// framebuffers and the clear colour current now.
func restoreFramebuffers() func() {
	var draw, read int32
	var clear [4]float32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &draw)
	gl.GetIntegerv(gl.READ_FRAMEBUFFER_BINDING, &read)
	gl.GetFloatv(gl.COLOR_CLEAR_VALUE, &clear[0])
	return func() {
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(draw))
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, uint32(read))
		gl.ClearColor(clear[0], clear[1], clear[2], clear[3])
	}
}

// maxBlurTaps caps the blur's taps on each side of a texel.
const maxBlurTaps = 48

// Update renders the mesh last uploaded to c into the map and blurs it,
// over a square holding the horizontal bounds of [lo, hi] (the cloth's)
// grown by 1.5·Radius (3σ) on every side; h₀ is lo's height. Empty bounds (lo > hi) or an
// empty mesh leave the shadow off. It restores the framebuffer bindings,
// the viewport and the rest of the GL state it changes.
func (s *ContactShadow) Update(c *ClothRenderer, lo, hi mgl32.Vec3) {
	s.valid = false
	if lo[0] > hi[0] || lo[2] > hi[2] || c.numIndices == 0 {
		return
	}
	// A square, so that texels are square and the blur round.
	side := max(hi[0]-lo[0], hi[2]-lo[2]) + 3*s.Radius
	side = max(side, 1e-3)
	x0, z0 := (lo[0]+hi[0]-side)/2, (lo[2]+hi[2]-side)/2
	s.rect, s.h0 = [4]float32{x0, z0, 1 / side, 1 / side}, lo[1]
	falloff := max(s.Falloff, 1e-4)

	saved := saveGLState()
	defer saved.restore()
	defer restoreFramebuffers()()
	gl.Viewport(0, 0, s.size, s.size)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.SCISSOR_TEST)
	gl.Disable(gl.POLYGON_OFFSET_FILL)
	gl.Disable(gl.MULTISAMPLE)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)

	// E of the lowest cloth over each texel.
	gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo[0])
	gl.ClearColor(0, 0, 0, 0)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.MAX)
	gl.UseProgram(s.height.id)
	gl.Uniform4fv(s.height.loc("uRect"), 1, &s.rect[0])
	gl.Uniform2f(s.height.loc("uFalloff"), s.h0, falloff)
	gl.BindVertexArray(c.clothVAO)
	gl.DrawElementsWithOffset(gl.TRIANGLES, c.numIndices, gl.UNSIGNED_INT, 0)
	if c.wireVerts > 0 {
		gl.BindVertexArray(c.wireVAO)
		gl.DrawArrays(gl.LINES, 0, c.wireVerts)
	}

	// Two Gaussian passes, along x into map 1, then along z into map 2.
	gl.Disable(gl.BLEND)
	sigma := 0.5 * s.Radius * float32(s.size) / side // texels
	taps := int32(min(math.Ceil(float64(3*sigma)), maxBlurTaps))
	gl.UseProgram(s.blur.id)
	gl.Uniform1i(s.blur.loc("uSource"), 0)
	gl.Uniform1i(s.blur.loc("uRadius"), taps)
	gl.Uniform1f(s.blur.loc("uSigma"), max(sigma, 1e-3))
	gl.BindVertexArray(s.emptyVAO)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindSampler(0, 0)
	for pass, dir := range [2][2]int32{{1, 0}, {0, 1}} {
		gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo[pass+1])
		gl.BindTexture(gl.TEXTURE_2D, s.tex[pass])
		gl.Uniform2i(s.blur.loc("uDir"), dir[0], dir[1])
		gl.DrawArrays(gl.TRIANGLES, 0, 3)
	}
	s.valid = true
}

// bind sets the contact shadow uniforms of program p (cloth.frag.glsl's
// uShadow*) and binds the blurred map to texture unit 0; a nil or
// never-updated s turns the shadow off. The caller saves and restores the
// texture binding.
func (s *ContactShadow) bind(p *program) {
	on := s != nil && s.valid
	gl.Uniform1i(p.loc("uShadowOn"), boolInt(on))
	if !on {
		return
	}
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, s.tex[2])
	gl.BindSampler(0, 0)
	gl.Uniform1i(p.loc("uShadowMap"), 0)
	gl.Uniform4fv(p.loc("uShadowRect"), 1, &s.rect[0])
	gl.Uniform3f(p.loc("uShadowShape"), s.h0, max(s.Falloff, 1e-4), s.Strength)
}

// Delete releases the GL objects. It is safe to call more than once.
func (s *ContactShadow) Delete() {
	s.height.delete()
	s.blur.delete()
	for i := range s.fbo {
		if s.fbo[i] != 0 {
			gl.DeleteFramebuffers(1, &s.fbo[i])
			s.fbo[i] = 0
		}
		if s.tex[i] != 0 {
			gl.DeleteTextures(1, &s.tex[i])
			s.tex[i] = 0
		}
	}
	if s.emptyVAO != 0 {
		gl.DeleteVertexArrays(1, &s.emptyVAO)
		s.emptyVAO = 0
	}
}
