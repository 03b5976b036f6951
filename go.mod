module tumble

go 1.26.8

require github.com/go-gl/mathgl v1.2.0
