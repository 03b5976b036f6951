// Package robots holds the robots written for Tumble as URDF files, embedded so that a preset reads
// them from any working folder: arm.urdf (a four-joint arm bolted to the world) and walker.urdf (a
// four-legged walker standing on its servos).
package robots

import _ "embed"

// Arm is arm.urdf.
//
//go:embed arm.urdf
var Arm []byte

// Walker is walker.urdf.
//
//go:embed walker.urdf
var Walker []byte
