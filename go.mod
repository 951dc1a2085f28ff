module drape

go 1.26

require (
	github.com/go-gl/gl v0.0.0-20231021071112-07e5d0ea2e71
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20240506104042-037f3cc74f2a
	github.com/go-gl/mathgl v1.2.0
	github.com/inkyblackness/imgui-go/v4 v4.7.0
)
