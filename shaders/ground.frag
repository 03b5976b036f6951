#version 450 core
// The ground: a grey plane with a 1 m grid and a 5 m grid, lit and shadowed like the shapes, fading
// into the sky with distance.
in vec3 vWorld;
in vec4 vLight;
uniform vec3 uNormal;
uniform vec3 uLightDir;
uniform vec3 uEye;
uniform vec3 uSky;
uniform float uFog; // distance at which the ground has faded into the sky
uniform sampler2DShadow uShadow;
out vec4 fragColor;

float shadow(vec4 lp) {
	vec3 p = lp.xyz / lp.w * 0.5 + 0.5;
	if (p.z > 1.0 || p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0) return 1.0;
	// One comparison tap: the sampler filters linearly, a 2 x 2 PCF (cheap on a software renderer).
	return texture(uShadow, vec3(p.xy, p.z - 0.001));
}

float grid(vec2 p, float step) {
	vec2 g = abs(fract(p / step - 0.5) - 0.5) / fwidth(p / step);
	return 1.0 - min(min(g.x, g.y), 1.0);
}

void main() {
	vec3 a = abs(uNormal);
	vec2 p = a.y > 0.5 ? vWorld.xz : (a.x > 0.5 ? vWorld.yz : vWorld.xy);
	float line = max(grid(p, 1.0) * 0.5, grid(p, 5.0));
	float ndl = max(dot(uNormal, uLightDir), 0.0);
	vec3 base = mix(vec3(0.42, 0.43, 0.45), vec3(0.25, 0.26, 0.28), line);
	vec3 c = base * (0.4 + 0.6 * ndl * shadow(vLight));
	float fog = clamp(length(vWorld - uEye) / uFog, 0.0, 1.0);
	fragColor = vec4(mix(c, uSky, fog * fog), 1.0);
}
