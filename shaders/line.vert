#version 450 core
// Debug lines: world positions with a colour each (widened by line.geom).
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec4 aColor;
uniform mat4 uViewProj;
out vec4 gColor;
void main() {
	gColor = aColor;
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
