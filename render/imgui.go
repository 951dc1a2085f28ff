package render

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/inkyblackness/imgui-go/v4"

	"drape/shaders"
)

// ImGuiRenderer draws Dear ImGui draw data (imgui-go v4, Dear ImGui 1.85)
// with OpenGL 4.1 core. It follows the structure of the OpenGL3 renderer in
// inkyblackness/imgui-go-examples, with #version 410 core shaders from
// package shaders, an RGBA32 font atlas and per-command base vertices.
// Draw the ImGui pass last in a frame.
type ImGuiRenderer struct {
	prog        *program
	vao         uint32
	vbo, ebo    buffer
	fontTexture uint32
}

// NewImGuiRenderer compiles the ImGui shaders, uploads the font atlas of
// io to a texture and registers that texture as the atlas's TextureID. An
// ImGui context and a current GL context must exist.
func NewImGuiRenderer(io imgui.IO) (*ImGuiRenderer, error) {
	prog, err := newProgram("imgui", shaders.ImGuiVert, shaders.ImGuiFrag)
	if err != nil {
		return nil, err
	}
	r := &ImGuiRenderer{prog: prog}

	saved := saveGLState()
	defer saved.restore()

	gl.GenBuffers(1, &r.vbo.id)
	gl.GenBuffers(1, &r.ebo.id)
	gl.GenVertexArrays(1, &r.vao)
	gl.BindVertexArray(r.vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo.id)
	size, posOff, uvOff, colOff := imgui.VertexBufferLayout()
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, int32(size), uintptr(posOff))
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 2, gl.FLOAT, false, int32(size), uintptr(uvOff))
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 4, gl.UNSIGNED_BYTE, true, int32(size), uintptr(colOff))
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo.id)

	// Font atlas, uploaded as RGBA so the fragment shader is a plain
	// texture × vertex colour and user images work the same way.
	img := io.Fonts().TextureDataRGBA32()
	gl.GenTextures(1, &r.fontTexture)
	gl.BindTexture(gl.TEXTURE_2D, r.fontTexture)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	var lastUnpack int32
	gl.GetIntegerv(gl.UNPACK_ALIGNMENT, &lastUnpack)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, int32(img.Width), int32(img.Height), 0,
		gl.RGBA, gl.UNSIGNED_BYTE, img.Pixels)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, lastUnpack)
	io.Fonts().SetTextureID(imgui.TextureID(r.fontTexture))

	// Each command carries a base vertex, so lists with more than 64k
	// vertices work with 16-bit indices.
	io.SetBackendFlags(io.GetBackendFlags() | imgui.BackendFlagsRendererHasVtxOffset)

	if err := CheckGLError(); err != nil {
		r.Delete()
		return nil, fmt.Errorf("creating imgui renderer: %w", err)
	}
	return r, nil
}

// Render draws drawData. displaySize is the window size in screen
// coordinates (what ImGui lays out in), framebufferSize the size in pixels;
// their ratio scales the clip rectangles on HiDPI displays. Nothing is
// drawn for a minimised (zero-sized) window. The GL state Render changes is
// restored before it returns.
func (r *ImGuiRenderer) Render(displaySize, framebufferSize [2]float32, drawData imgui.DrawData) {
	dw, dh := displaySize[0], displaySize[1]
	fw, fh := framebufferSize[0], framebufferSize[1]
	if dw <= 0 || dh <= 0 || fw <= 0 || fh <= 0 || !drawData.Valid() {
		return
	}
	scaleX, scaleY := fw/dw, fh/dh

	saved := saveGLState()
	defer saved.restore()

	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.POLYGON_OFFSET_FILL)
	gl.Enable(gl.SCISSOR_TEST)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.Viewport(0, 0, int32(fw), int32(fh))

	// Orthographic projection of display space (origin top-left, y down)
	// onto clip space.
	pos := drawData.DisplayPos()
	l, t := pos.X, pos.Y
	rr, b := l+dw, t+dh
	proj := [16]float32{
		2 / (rr - l), 0, 0, 0,
		0, 2 / (t - b), 0, 0,
		0, 0, -1, 0,
		(rr + l) / (l - rr), (t + b) / (b - t), 0, 1,
	}
	gl.UseProgram(r.prog.id)
	gl.Uniform1i(r.prog.loc("uTexture"), 0)
	gl.UniformMatrix4fv(r.prog.loc("uProj"), 1, false, &proj[0])
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindSampler(0, 0)
	gl.BindVertexArray(r.vao)

	indexSize := imgui.IndexBufferLayout()
	indexType := uint32(gl.UNSIGNED_SHORT)
	if indexSize == 4 {
		indexType = gl.UNSIGNED_INT
	}

	for _, list := range drawData.CommandLists() {
		vb, vbSize := list.VertexBuffer()
		r.vbo.upload(gl.ARRAY_BUFFER, vbSize, vb)
		ib, ibSize := list.IndexBuffer()
		r.ebo.upload(gl.ELEMENT_ARRAY_BUFFER, ibSize, ib)

		for _, cmd := range list.Commands() {
			if cmd.HasUserCallback() {
				cmd.CallUserCallback(list)
				continue
			}
			// Clip rectangle in framebuffer pixels; GL's scissor origin is
			// the bottom-left corner.
			clip := cmd.ClipRect()
			x0, y0 := (clip.X-l)*scaleX, (clip.Y-t)*scaleY
			x1, y1 := (clip.Z-l)*scaleX, (clip.W-t)*scaleY
			if x1 <= x0 || y1 <= y0 {
				continue
			}
			gl.Scissor(int32(x0), int32(fh-y1), int32(x1-x0), int32(y1-y0))
			gl.BindTexture(gl.TEXTURE_2D, uint32(cmd.TextureID()))
			gl.DrawElementsBaseVertexWithOffset(gl.TRIANGLES, int32(cmd.ElementCount()), indexType,
				uintptr(cmd.IndexOffset()*indexSize), int32(cmd.VertexOffset()))
		}
	}
}

// Delete releases the GL objects. The font atlas's TextureID is left
// dangling; recreate a renderer before drawing ImGui again.
func (r *ImGuiRenderer) Delete() {
	r.prog.delete()
	for _, b := range []*buffer{&r.vbo, &r.ebo} {
		if b.id != 0 {
			gl.DeleteBuffers(1, &b.id)
			b.id, b.capacity = 0, 0
		}
	}
	if r.vao != 0 {
		gl.DeleteVertexArrays(1, &r.vao)
		r.vao = 0
	}
	if r.fontTexture != 0 {
		gl.DeleteTextures(1, &r.fontTexture)
		r.fontTexture = 0
	}
}
