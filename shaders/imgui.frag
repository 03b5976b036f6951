#version 450 core
in vec2 vUV;
in vec4 vColor;
uniform sampler2D uTex;
out vec4 fragColor;
void main() { fragColor = vColor * texture(uTex, vUV); }
