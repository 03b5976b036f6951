module tumble

go 1.26.8

require (
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20260823155953-d41da22a9587 // indirect
	github.com/go-gl/mathgl v1.2.0 // indirect
)
