#version 450 core
// Depth from the light: the same placement as mesh.vert, nothing else.
layout(location = 0) in vec3 aPos;
layout(location = 2) in float aShift;
layout(location = 3) in vec3 iPos;
layout(location = 4) in vec4 iQuat;
layout(location = 5) in vec3 iScale;
layout(location = 6) in float iExtra;

uniform mat4 uLightViewProj;

vec3 rotate(vec4 q, vec3 v) {
	vec3 t = 2.0 * cross(q.xyz, v);
	return v + q.w * t + cross(q.xyz, t);
}

void main() {
	vec3 local = aPos * iScale + vec3(0.0, aShift * iExtra, 0.0);
	gl_Position = uLightViewProj * vec4(iPos + rotate(iQuat, local), 1.0);
}
