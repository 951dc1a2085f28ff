// Package render draws drape's scene with OpenGL 4.1 core: the cloth
// surface, its wireframe, the ground grid, pin markers and the Dear ImGui
// overlay. It also owns the GLFW window (platform.go), framebuffer readback
// (readback.go) and a pure-Go orbit camera (camera.go).
//
// Every function that calls GL must run on the thread that owns the
// context; the caller (package app) locks it with runtime.LockOSThread.
// render knows nothing about the simulation: it draws plain slices.
package render

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// program is a linked GL program with a cache of its uniform locations.
type program struct {
	id       uint32
	uniforms map[string]int32
}

// newProgram compiles and links a vertex and a fragment shader. name is
// used in error messages ("compiling cloth fragment shader: <info log>").
func newProgram(name, vertSrc, fragSrc string) (*program, error) {
	vs, err := compileShader(gl.VERTEX_SHADER, vertSrc)
	if err != nil {
		return nil, fmt.Errorf("compiling %s vertex shader: %w", name, err)
	}
	defer gl.DeleteShader(vs)
	fs, err := compileShader(gl.FRAGMENT_SHADER, fragSrc)
	if err != nil {
		return nil, fmt.Errorf("compiling %s fragment shader: %w", name, err)
	}
	defer gl.DeleteShader(fs)

	id := gl.CreateProgram()
	gl.AttachShader(id, vs)
	gl.AttachShader(id, fs)
	gl.LinkProgram(id)
	gl.DetachShader(id, vs)
	gl.DetachShader(id, fs)
	var status int32
	gl.GetProgramiv(id, gl.LINK_STATUS, &status)
	if status == gl.FALSE {
		var n int32
		gl.GetProgramiv(id, gl.INFO_LOG_LENGTH, &n)
		log := infoLog(n, func(buf *uint8) { gl.GetProgramInfoLog(id, n, nil, buf) })
		gl.DeleteProgram(id)
		return nil, fmt.Errorf("linking %s program: %s", name, log)
	}
	return &program{id: id, uniforms: map[string]int32{}}, nil
}

// compileShader compiles one shader stage and returns the info log as the
// error when compilation fails.
func compileShader(kind uint32, src string) (uint32, error) {
	sh := gl.CreateShader(kind)
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(sh, 1, csrc, nil)
	free()
	gl.CompileShader(sh)
	var status int32
	gl.GetShaderiv(sh, gl.COMPILE_STATUS, &status)
	if status == gl.FALSE {
		var n int32
		gl.GetShaderiv(sh, gl.INFO_LOG_LENGTH, &n)
		log := infoLog(n, func(buf *uint8) { gl.GetShaderInfoLog(sh, n, nil, buf) })
		gl.DeleteShader(sh)
		return 0, fmt.Errorf("%s", log)
	}
	return sh, nil
}

// infoLog reads an info log of n bytes (including the terminating NUL)
// through get.
func infoLog(n int32, get func(*uint8)) string {
	if n <= 1 {
		return "(no info log)"
	}
	buf := make([]uint8, n)
	get(&buf[0])
	return strings.TrimRight(string(buf), "\x00\n ")
}

// loc returns the location of uniform name, -1 if the program has no such
// active uniform (GL ignores uploads to -1).
func (p *program) loc(name string) int32 {
	if l, ok := p.uniforms[name]; ok {
		return l
	}
	l := gl.GetUniformLocation(p.id, gl.Str(name+"\x00"))
	p.uniforms[name] = l
	return l
}

// delete releases the GL program.
func (p *program) delete() {
	if p != nil && p.id != 0 {
		gl.DeleteProgram(p.id)
		p.id = 0
	}
}

// glErrorNames names the error codes glGetError can return in a 4.1 core
// context.
var glErrorNames = map[uint32]string{
	gl.INVALID_ENUM:                  "GL_INVALID_ENUM",
	gl.INVALID_VALUE:                 "GL_INVALID_VALUE",
	gl.INVALID_OPERATION:             "GL_INVALID_OPERATION",
	gl.INVALID_FRAMEBUFFER_OPERATION: "GL_INVALID_FRAMEBUFFER_OPERATION",
	gl.OUT_OF_MEMORY:                 "GL_OUT_OF_MEMORY",
	gl.STACK_UNDERFLOW:               "GL_STACK_UNDERFLOW",
	gl.STACK_OVERFLOW:                "GL_STACK_OVERFLOW",
}

// CheckGLError drains the GL error queue and returns nil if it was empty,
// otherwise an error naming every queued code, e.g. "GL error:
// GL_INVALID_OPERATION". Call it once per frame; glGetError is cheap but
// synchronises with some drivers.
func CheckGLError() error {
	var names []string
	// glGetError returns one flag per call; a lost context can keep
	// returning errors, so stop after a bounded number.
	for i := 0; i < 16; i++ {
		code := gl.GetError()
		if code == gl.NO_ERROR {
			break
		}
		name, ok := glErrorNames[code]
		if !ok {
			name = fmt.Sprintf("GL error 0x%04X", code)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("GL error: %s", strings.Join(names, ", "))
}
