package render

import "github.com/go-gl/gl/v4.1-core/gl"

// glState is the subset of GL state the renderers change. save reads it,
// restore writes it back, so a draw call leaves the context as it found it.
type glState struct {
	program, vao, arrayBuffer, elementBuffer int32
	activeTexture, texture, sampler          int32
	viewport, scissorBox                     [4]int32
	polygonMode                              [2]int32
	blendSrcRGB, blendDstRGB                 int32
	blendSrcAlpha, blendDstAlpha             int32
	blendEqRGB, blendEqAlpha                 int32
	depthFunc                                int32
	depthMask                                bool
	polyOffsetFactor, polyOffsetUnits        float32
	enabled                                  map[uint32]bool
}

// savedCaps lists the capabilities save records and restore re-applies.
var savedCaps = []uint32{
	gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.SCISSOR_TEST,
	gl.POLYGON_OFFSET_FILL, gl.PROGRAM_POINT_SIZE, gl.MULTISAMPLE,
}

// saveGLState returns the current values of the state in glState.
func saveGLState() glState {
	var s glState
	gl.GetIntegerv(gl.CURRENT_PROGRAM, &s.program)
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &s.vao)
	gl.GetIntegerv(gl.ARRAY_BUFFER_BINDING, &s.arrayBuffer)
	gl.GetIntegerv(gl.ACTIVE_TEXTURE, &s.activeTexture)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.GetIntegerv(gl.TEXTURE_BINDING_2D, &s.texture)
	gl.GetIntegerv(gl.SAMPLER_BINDING, &s.sampler)
	gl.GetIntegerv(gl.VIEWPORT, &s.viewport[0])
	gl.GetIntegerv(gl.SCISSOR_BOX, &s.scissorBox[0])
	gl.GetIntegerv(gl.POLYGON_MODE, &s.polygonMode[0])
	gl.GetIntegerv(gl.BLEND_SRC_RGB, &s.blendSrcRGB)
	gl.GetIntegerv(gl.BLEND_DST_RGB, &s.blendDstRGB)
	gl.GetIntegerv(gl.BLEND_SRC_ALPHA, &s.blendSrcAlpha)
	gl.GetIntegerv(gl.BLEND_DST_ALPHA, &s.blendDstAlpha)
	gl.GetIntegerv(gl.BLEND_EQUATION_RGB, &s.blendEqRGB)
	gl.GetIntegerv(gl.BLEND_EQUATION_ALPHA, &s.blendEqAlpha)
	gl.GetIntegerv(gl.DEPTH_FUNC, &s.depthFunc)
	gl.GetBooleanv(gl.DEPTH_WRITEMASK, &s.depthMask)
	gl.GetFloatv(gl.POLYGON_OFFSET_FACTOR, &s.polyOffsetFactor)
	gl.GetFloatv(gl.POLYGON_OFFSET_UNITS, &s.polyOffsetUnits)
	s.enabled = make(map[uint32]bool, len(savedCaps))
	for _, c := range savedCaps {
		s.enabled[c] = gl.IsEnabled(c)
	}
	// The element buffer binding belongs to the VAO, so it is read last
	// and restored after the VAO.
	gl.GetIntegerv(gl.ELEMENT_ARRAY_BUFFER_BINDING, &s.elementBuffer)
	return s
}

// restore writes s back into the context.
func (s glState) restore() {
	gl.UseProgram(uint32(s.program))
	gl.BindTexture(gl.TEXTURE_2D, uint32(s.texture))
	gl.BindSampler(0, uint32(s.sampler))
	gl.ActiveTexture(uint32(s.activeTexture))
	gl.BindVertexArray(uint32(s.vao))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.arrayBuffer))
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, uint32(s.elementBuffer))
	gl.Viewport(s.viewport[0], s.viewport[1], s.viewport[2], s.viewport[3])
	gl.Scissor(s.scissorBox[0], s.scissorBox[1], s.scissorBox[2], s.scissorBox[3])
	gl.PolygonMode(gl.FRONT_AND_BACK, uint32(s.polygonMode[0]))
	gl.BlendEquationSeparate(uint32(s.blendEqRGB), uint32(s.blendEqAlpha))
	gl.BlendFuncSeparate(uint32(s.blendSrcRGB), uint32(s.blendDstRGB), uint32(s.blendSrcAlpha), uint32(s.blendDstAlpha))
	gl.DepthFunc(uint32(s.depthFunc))
	gl.DepthMask(s.depthMask)
	gl.PolygonOffset(s.polyOffsetFactor, s.polyOffsetUnits)
	for c, on := range s.enabled {
		setEnabled(c, on)
	}
}

// setEnabled enables or disables capability c.
func setEnabled(c uint32, on bool) {
	if on {
		gl.Enable(c)
	} else {
		gl.Disable(c)
	}
}
