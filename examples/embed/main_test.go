package main

import (
	"os"
	"strings"
	"testing"
)

// Example runs the program: a world stepped for 3 s, every body at rest where it landed.
func Example() {
	main()
	// Output:
	// a ray down at x 1 hits box0 at y 1.0
	// ground  at (0.0, 0.0, 0.0)
	// box0    at (1.0, 0.5, 1.0)
	// sphere1 at (3.0, 0.5, 1.0)
	// box2    at (5.0, 0.8, 1.0)
}

// TestLibraryDocShowsThisProgram: docs/LIBRARY.md's program is this file, character for character, so
// what the page shows compiles and runs (Example above).
func TestLibraryDocShowsThisProgram(t *testing.T) {
	doc, err := os.ReadFile("../../docs/LIBRARY.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	const open, end = "```go\n", "```\n"
	_, block, ok := strings.Cut(string(doc), open)
	if ok {
		block, _, ok = strings.Cut(block, end)
	}
	if !ok {
		t.Fatalf("docs/LIBRARY.md: no %q block", strings.TrimSpace(open))
	}
	if block != string(src) {
		t.Errorf("docs/LIBRARY.md's first Go block is not examples/embed/main.go: copy main.go into it")
	}
}
