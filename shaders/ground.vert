#version 450 core
// A plane body drawn as a large square: corners come in world space.
layout(location = 0) in vec3 aPos;
uniform mat4 uViewProj;
uniform mat4 uLightViewProj;
out vec3 vWorld;
out vec4 vLight;
void main() {
	vWorld = aPos;
	vLight = uLightViewProj * vec4(aPos, 1.0);
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
