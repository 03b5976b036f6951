package kernels

import "regexp"

var entryRE = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// Entries returns the names of the kernels (.entry) a PTX module defines, in the order it defines them.
func (m Module) Entries() []string {
	var out []string
	for _, s := range entryRE.FindAllSubmatch(m.PTX, -1) {
		out = append(out, string(s[1]))
	}
	return out
}

// Owners maps every kernel name to the index in Modules() of the one module that defines it, so that a
// device looks each kernel up in its own module: asking the others fails in the driver
// (cuModuleGetFunction: named symbol not found), which compute-sanitizer reports as API errors.
func Owners(mods []Module) map[string]int {
	out := map[string]int{}
	for i, m := range mods {
		for _, e := range m.Entries() {
			out[e] = i
		}
	}
	return out
}
