#version 450 core
// Debug lines as screen-space quads uHalfWidth pixels either side of the segment (and past its ends,
// so that the segments of a polyline meet): core profile OpenGL need not draw lines wider than one
// pixel (llvmpipe's glLineWidth stops at 1 in a forward-compatible context).
layout(lines) in;
layout(triangle_strip, max_vertices = 4) out;
in vec4 gColor[];
out vec4 vColor;
uniform vec2 uViewport;   // pixels
uniform float uHalfWidth; // pixels
void main() {
	vec4 a = gl_in[0].gl_Position, b = gl_in[1].gl_Position;
	// Clip the segment to w > e (in front of the eye) before dividing by w.
	const float e = 1e-4;
	if (a.w < e && b.w < e) return;
	if (a.w < e) a = mix(a, b, (e - a.w) / (b.w - a.w));
	if (b.w < e) b = mix(b, a, (e - b.w) / (a.w - b.w));
	vec2 half_vp = 0.5 * uViewport;
	vec2 sa = a.xy / a.w * half_vp, sb = b.xy / b.w * half_vp;
	vec2 d = sb - sa;
	float len = length(d);
	d = len > 1e-6 ? d / len : vec2(1.0, 0.0);
	vec2 n = vec2(-d.y, d.x) * uHalfWidth / half_vp; // NDC offsets
	vec2 t = d * uHalfWidth / half_vp;
	vColor = gColor[0];
	gl_Position = vec4(a.xy + (-t + n) * a.w, a.zw); EmitVertex();
	gl_Position = vec4(a.xy + (-t - n) * a.w, a.zw); EmitVertex();
	vColor = gColor[1];
	gl_Position = vec4(b.xy + (t + n) * b.w, b.zw); EmitVertex();
	gl_Position = vec4(b.xy + (t - n) * b.w, b.zw); EmitVertex();
	EndPrimitive();
}
