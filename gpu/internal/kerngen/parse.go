package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The C the kernels are written in is a small, regular subset (tumble.cuh's rules): kernels are
// declared `TB_KERNEL void name(params)` with pointer or scalar parameters, and the structures they
// share are plain `struct Name { fields };` at the top level of a file. This parser reads exactly that
// and says so when it meets something else it needs.

// cType is a C type as a declaration names it: a base type and whether it is a pointer to it.
type cType struct {
	Base  string // "float", "unsigned int", "unsigned long long", "TbShape", "float4", ...
	Ptr   bool
	Const bool // a pointer to const (the kernel only reads through it)
}

func (t cType) String() string {
	s := t.Base
	if t.Const {
		s = "const " + s
	}
	if t.Ptr {
		s += " *"
	}
	return s
}

// cField is one declarator of a structure's field declaration.
type cField struct {
	Name  string
	Type  cType
	Dims  []int    // array dimensions, outermost first
	Decl  int      // which declaration of the structure it belongs to (fields declared together)
	Lead  []string // comment lines above its declaration (on the declaration's first field only)
	Trail string   // the comment after its declaration
}

// cStruct is a structure definition.
type cStruct struct {
	Name   string
	File   string   // the file that defines it
	Doc    []string // the comment lines above it
	Align  int      // from __attribute__((aligned(N))), 0 if none
	Fields []cField
	body   string // unparsed until needed
	parsed bool
	err    error
}

// cKernel is a TB_KERNEL function.
type cKernel struct {
	Name   string
	File   string
	Doc    []string
	Params []cParam
}

// cParam is a kernel parameter.
type cParam struct {
	Name string
	Type cType
}

// source is everything parsed from the kernel sources.
type source struct {
	structs map[string]*cStruct
	kernels []*cKernel // by file, then in file order
	defines map[string]int
}

var (
	structRE   = regexp.MustCompile(`(?m)^struct (\w+) \{\n`)
	structEnd  = regexp.MustCompile(`(?m)^\}\s*(?:__attribute__\(\(aligned\((\d+)\)\)\))?\s*;`)
	kernelRE   = regexp.MustCompile(`TB_KERNEL\s+void\s+(\w+)\s*\(([^)]*)\)`)
	registerRE = regexp.MustCompile(`(?m)^TB_REGISTER(?:_SYNC)?\((\w+)\)`)
	defineRE   = regexp.MustCompile(`(?m)^#define (\w+) (\d+)u?\b`)
	tokenRE    = regexp.MustCompile(`[A-Za-z_]\w*|\*|\[|\]|\d+|\S`)
)

// parseSources reads the structures and kernels of files (name to contents: *.cu and *.cuh). In
// tumble.cuh only the host emulation's CUDA vector types count: the rest is the emulator's own.
func parseSources(files map[string][]byte) (*source, error) {
	src := &source{structs: map[string]*cStruct{}, defines: map[string]int{}}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		text := strings.ReplaceAll(string(files[name]), "\r\n", "\n")
		for _, m := range defineRE.FindAllStringSubmatch(text, -1) {
			v, _ := strconv.Atoi(m[2])
			src.defines[m[1]] = v
		}
		if err := src.addStructs(name, text); err != nil {
			return nil, err
		}
		if strings.HasSuffix(name, ".cu") {
			if err := src.addKernels(name, text); err != nil {
				return nil, err
			}
		}
	}
	return src, nil
}

// commentAbove returns the // comment lines just above line i of lines, without the slashes.
func commentAbove(lines []string, i int) []string {
	var out []string
	for j := i - 1; j >= 0; j-- {
		l := strings.TrimSpace(lines[j])
		if !strings.HasPrefix(l, "//") {
			break
		}
		out = append([]string{commentText(l)}, out...)
	}
	return out
}

func commentText(l string) string {
	l = strings.TrimPrefix(strings.TrimSpace(l), "//")
	return strings.TrimPrefix(l, " ")
}

func (src *source) addStructs(file, text string) error {
	lines := strings.Split(text, "\n")
	for _, m := range structRE.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		end := structEnd.FindStringSubmatchIndex(text[m[1]:])
		if end == nil {
			return fmt.Errorf("%s: struct %s: no closing \"};\" at the start of a line", file, name)
		}
		s := &cStruct{Name: name, File: file, body: text[m[1] : m[1]+end[0]]}
		if end[2] >= 0 {
			s.Align, _ = strconv.Atoi(text[m[1]+end[2] : m[1]+end[3]])
		}
		line := strings.Count(text[:m[0]], "\n")
		s.Doc = commentAbove(lines, line)
		if prev, dup := src.structs[name]; dup {
			return fmt.Errorf("%s: struct %s is also defined in %s", file, name, prev.File)
		}
		src.structs[name] = s
	}
	return nil
}

// parse reads the structure's fields (done only for the structures the kernels' parameters reach).
func (s *cStruct) parse(defines map[string]int) error {
	if s.parsed {
		return s.err
	}
	s.parsed = true
	var lead []string
	var code strings.Builder
	decl := 0
	for _, raw := range strings.Split(s.body, "\n") {
		line, trail, _ := strings.Cut(raw, "//")
		line = strings.TrimSpace(line)
		trail = strings.TrimSpace(trail)
		if line == "" {
			if trail != "" {
				lead = append(lead, commentText("//"+raw[strings.Index(raw, "//")+2:]))
			} else {
				lead = nil // a blank line ends a comment block
			}
			continue
		}
		code.WriteString(" " + line)
		if !strings.HasSuffix(line, ";") {
			continue
		}
		text := strings.TrimSuffix(strings.TrimSpace(code.String()), ";")
		code.Reset()
		if strings.ContainsAny(text, "(){};") {
			s.err = fmt.Errorf("%s: struct %s: %q is not a plain field declaration", s.File, s.Name, text)
			return s.err
		}
		fields, err := parseDecl(text, defines)
		if err != nil {
			s.err = fmt.Errorf("%s: struct %s: %w", s.File, s.Name, err)
			return s.err
		}
		for i := range fields {
			fields[i].Decl = decl
			fields[i].Trail = trail
		}
		fields[0].Lead = lead
		lead = nil
		s.Fields = append(s.Fields, fields...)
		decl++
	}
	if strings.TrimSpace(code.String()) != "" {
		s.err = fmt.Errorf("%s: struct %s: %q has no closing ';'", s.File, s.Name, code.String())
		return s.err
	}
	if len(s.Fields) == 0 {
		s.err = fmt.Errorf("%s: struct %s has no fields", s.File, s.Name)
	}
	return s.err
}

// parseDecl parses one declaration without its ';': a type, then declarators separated by commas,
// each a name with an optional '*' before it and array dimensions after it.
func parseDecl(text string, defines map[string]int) ([]cField, error) {
	parts := strings.Split(text, ",")
	first, err := parseDeclarator(parts[0], true, defines)
	if err != nil {
		return nil, err
	}
	out := []cField{first}
	for _, p := range parts[1:] {
		f, err := parseDeclarator(p, false, defines)
		if err != nil {
			return nil, err
		}
		f.Type.Base, f.Type.Const = first.Type.Base, first.Type.Const
		out = append(out, f)
	}
	return out, nil
}

// parseDeclarator parses "const float *name[3]" (withType) or "*name[3]".
func parseDeclarator(text string, withType bool, defines map[string]int) (cField, error) {
	var f cField
	var words []string
	toks := tokenRE.FindAllString(text, -1)
	i := 0
	for ; i < len(toks) && toks[i] != "["; i++ {
		switch t := toks[i]; t {
		case "*":
			if f.Type.Ptr {
				return f, fmt.Errorf("%q: pointers to pointers are not supported", text)
			}
			f.Type.Ptr = true
		case "const":
			if !f.Type.Ptr {
				f.Type.Const = true
			}
		case "struct", "__restrict__", "__restrict", "volatile":
		default:
			if !isIdent(t) {
				return f, fmt.Errorf("%q: unexpected %q", text, t)
			}
			words = append(words, t)
		}
	}
	if len(words) == 0 {
		return f, fmt.Errorf("%q: no name", text)
	}
	f.Name, words = words[len(words)-1], words[:len(words)-1]
	if withType {
		if len(words) == 0 {
			return f, fmt.Errorf("%q: no type", text)
		}
		f.Type.Base = normalType(words)
	} else if len(words) > 0 {
		return f, fmt.Errorf("%q: a type after the first declarator", text)
	}
	for i < len(toks) {
		if i+2 >= len(toks) || toks[i] != "[" || toks[i+2] != "]" {
			return f, fmt.Errorf("%q: array dimensions must be [N]", text)
		}
		n, err := strconv.Atoi(toks[i+1])
		if err != nil {
			v, ok := defines[toks[i+1]]
			if !ok {
				return f, fmt.Errorf("%q: unknown dimension %s", text, toks[i+1])
			}
			n = v
		}
		f.Dims = append(f.Dims, n)
		i += 3
	}
	return f, nil
}

func isIdent(s string) bool {
	return s != "" && (s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z')
}

// normalType spells a base type one way: "unsigned" is "unsigned int", "long long int" is "long long".
func normalType(words []string) string {
	t := strings.Join(words, " ")
	switch t {
	case "unsigned":
		return "unsigned int"
	case "long long int":
		return "long long"
	case "unsigned long long int":
		return "unsigned long long"
	}
	return t
}

// stripComments blanks // and /* */ comments, keeping every newline so line numbers stay.
func stripComments(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		switch {
		case strings.HasPrefix(text[i:], "//"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
			if i < len(text) {
				b.WriteByte('\n')
			}
		case strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				j = len(text) - i - 2
			}
			b.WriteString(strings.Repeat("\n", strings.Count(text[i:i+2+j], "\n")))
			i += j + 3
		default:
			b.WriteByte(text[i])
		}
	}
	return b.String()
}

func (src *source) addKernels(file, text string) error {
	code := stripComments(text)
	lines := strings.Split(text, "\n")
	registered := map[string]bool{}
	for _, m := range registerRE.FindAllStringSubmatch(code, -1) {
		registered[m[1]] = true
	}
	seen := map[string]bool{}
	for _, m := range kernelRE.FindAllStringSubmatchIndex(code, -1) {
		k := &cKernel{Name: code[m[2]:m[3]], File: file}
		k.Doc = commentAbove(lines, strings.Count(code[:m[0]], "\n"))
		if params := strings.TrimSpace(code[m[4]:m[5]]); params != "" && params != "void" {
			for _, p := range strings.Split(params, ",") {
				f, err := parseDeclarator(p, true, src.defines)
				if err != nil {
					return fmt.Errorf("%s: kernel %s: %w", file, k.Name, err)
				}
				if len(f.Dims) > 0 {
					return fmt.Errorf("%s: kernel %s: array parameter %s", file, k.Name, f.Name)
				}
				k.Params = append(k.Params, cParam{Name: f.Name, Type: f.Type})
			}
		}
		if !registered[k.Name] {
			return fmt.Errorf("%s: kernel %s is not registered (TB_REGISTER or TB_REGISTER_SYNC)", file, k.Name)
		}
		seen[k.Name] = true
		src.kernels = append(src.kernels, k)
	}
	if n := strings.Count(code, "TB_KERNEL"); n != len(seen) {
		return fmt.Errorf("%s: %d TB_KERNEL, %d of them read as `TB_KERNEL void name(params)`", file, n, len(seen))
	}
	for name := range registered {
		if !seen[name] {
			return fmt.Errorf("%s: TB_REGISTER(%s) names no TB_KERNEL of this file", file, name)
		}
	}
	return nil
}
