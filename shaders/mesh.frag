#version 450 core
in vec3 vNormal;
in vec3 vWorld;
in vec4 vColor;
in vec4 vLight;

uniform vec3 uLightDir; // towards the light
uniform vec3 uEye;
uniform sampler2DShadow uShadow;
uniform int uWire;
uniform int uDepthOnly; // the depth pre-pass: no shading

out vec4 fragColor;

float shadow(vec4 lp, float ndl) {
	vec3 p = lp.xyz / lp.w * 0.5 + 0.5;
	if (p.z > 1.0 || p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0) return 1.0;
	float bias = max(0.002 * (1.0 - ndl), 0.0005);
	// One comparison tap: the sampler filters linearly, a 2 x 2 PCF (cheap on a software renderer).
	return texture(uShadow, vec3(p.xy, p.z - bias));
}

void main() {
	if (uDepthOnly != 0) { fragColor = vec4(0.0); return; }
	if (uWire != 0) { fragColor = vec4(vColor.rgb * 1.2, 1.0); return; }
	vec3 n = normalize(vNormal);
	float ndl = max(dot(n, uLightDir), 0.0);
	float s = shadow(vLight, ndl);
	vec3 v = normalize(uEye - vWorld);
	vec3 h = normalize(uLightDir + v);
	float spec = pow(max(dot(n, h), 0.0), 32.0) * 0.25 * s;
	vec3 c = vColor.rgb * (0.35 + 0.65 * ndl * s) + vec3(spec);
	fragColor = vec4(c, 1.0);
}
