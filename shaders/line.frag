#version 450 core
in vec4 vColor;
uniform float uAlpha; // 1, or less for the parts of an overlay line behind a surface
out vec4 fragColor;
void main() { fragColor = vec4(vColor.rgb, vColor.a * uAlpha); }
