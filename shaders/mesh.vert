#version 450 core
// Instanced shapes: a unit mesh placed by a per-instance position, rotation (quaternion x,y,z,w) and
// scale. A capsule's vertices carry a shift of -1 or +1 that moves its hemispheres apart by the
// instance's half height.
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec3 aNormal;
layout(location = 2) in float aShift;
layout(location = 3) in vec3 iPos;
layout(location = 4) in vec4 iQuat;
layout(location = 5) in vec3 iScale;
layout(location = 6) in float iExtra;
layout(location = 7) in vec4 iColor;

uniform mat4 uViewProj;
uniform mat4 uLightViewProj;

out vec3 vNormal;
out vec3 vWorld;
out vec4 vColor;
out vec4 vLight;

vec3 rotate(vec4 q, vec3 v) {
	vec3 t = 2.0 * cross(q.xyz, v);
	return v + q.w * t + cross(q.xyz, t);
}

void main() {
	vec3 local = aPos * iScale + vec3(0.0, aShift * iExtra, 0.0);
	vec3 world = iPos + rotate(iQuat, local);
	vNormal = rotate(iQuat, normalize(aNormal / iScale));
	vWorld = world;
	vColor = iColor;
	vLight = uLightViewProj * vec4(world, 1.0);
	gl_Position = uViewProj * vec4(world, 1.0);
}
