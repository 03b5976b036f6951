package record

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"tumble/sim"
	"tumble/sim/internal/byteread"
)

// FileVersion is the version of the replay file format this package writes and reads
// (docs/REPLAY.md).
const FileVersion = 2

var fileMagic = [8]byte{'T', 'R', 'E', 'P', 'L', 'A', 'Y', '\n'}

// WriteTo writes the recording as a replay file (docs/REPLAY.md): the magic, the version, the state
// layout, the keyframe interval, the scene name, the groups (each a keyframe and its deltas, as held
// in memory: keyframe, per step the hash and display poses, and the exact poses when held), and a
// CRC-32 of everything before it. It streams through a 64 KB buffer: built whole in memory, the file
// (240 MB for 600 steps of the 10k pile) grows by appending to twice its size, and the process peaked
// at 1.27 GB for 229 MB recorded, against 0.82 GB streamed.
func (r *Recorder) WriteTo(w io.Writer, scene string) (int64, error) {
	cw := &countWriter{w: w}
	crc := crc32.NewIEEE()
	bw := bufio.NewWriterSize(io.MultiWriter(cw, crc), 64<<10)
	var word [8]byte
	u32 := func(v uint32) { binary.LittleEndian.PutUint32(word[:4], v); bw.Write(word[:4]) }
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(word[:], v); bw.Write(word[:]) }
	blob := func(b []byte) { u32(uint32(len(b))); bw.Write(b) }
	bw.Write(fileMagic[:])
	u32(FileVersion)
	u64(sim.StateLayout)
	u32(uint32(r.KeyEvery))
	blob([]byte(scene))
	u32(uint32(len(r.groups)))
	for _, g := range r.groups {
		u64(uint64(g.step))
		u32(uint32(g.n))
		u64(math.Float64bits(g.dt))
		flags := uint32(0)
		if g.periodic {
			flags |= 1
		}
		u32(flags)
		blob([]byte(g.edit))
		blob(g.names)
		blob(g.state)
		u32(uint32(len(g.disp)))
		for k, d := range g.disp {
			u64(g.hash[k])
			blob(d)
		}
		u32(uint32(len(g.exact)))
		for _, d := range g.exact {
			blob(d)
		}
	}
	if err := bw.Flush(); err != nil { // a write's error sticks: Flush returns the first
		return cw.n, err
	}
	binary.LittleEndian.PutUint32(word[:4], crc.Sum32())
	_, err := cw.Write(word[:4])
	return cw.n, err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Save writes the recording to a replay file at path.
func (r *Recorder) Save(path, scene string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := r.WriteTo(f, scene); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// Replay is a recording read from a file.
type Replay struct {
	*Recorder
	Scene string // the scene name it was recorded from
	// Resumable is false when the file was written by a build whose solver structures differ
	// (sim.StateLayout): its steps can be shown and traced, not re-simulated.
	Resumable bool
}

// Load reads a replay file. Anything wrong with it (not a replay file, another version, a damaged
// or truncated file, data that does not decode) is an error naming the file and what is wrong, and
// nothing is returned: every keyframe and every step is decoded before Load returns.
func Load(path string) (*Replay, error) { return LoadProgress(path, nil) }

// LoadProgress is Load, calling progress (when not nil) as the steps are decoded, with the steps done
// and the total, before each step: an error it returns stops the decoding at once and is returned
// (wrapped), with no Replay.
func LoadProgress(path string, progress func(done, total int) error) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rp, err := decode(data, progress)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	return rp, nil
}

// Decode reads a replay file's bytes; see Load.
func Decode(data []byte) (*Replay, error) { return decode(data, nil) }

func decode(data []byte, progress func(done, total int) error) (*Replay, error) {
	if len(data) < len(fileMagic)+8 || [8]byte(data[:8]) != fileMagic {
		return nil, errors.New("not a Tumble replay file (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v == 1 {
		return nil, fmt.Errorf("version 1 (a recording of exact poses only, written before display poses and per-step hashes); this build reads version %d: record it again", FileVersion)
	} else if v != FileVersion {
		return nil, fmt.Errorf("version %d, this build reads version %d", v, FileVersion)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("damaged or truncated (%d bytes; checksum mismatch)", len(data))
	}
	rd := byteread.Reader{B: body, Off: 12}
	layout := rd.U64()
	rec := New(math.MaxInt64, int(rd.U32()))
	blob := rd.Blob
	rp := &Replay{Recorder: rec, Resumable: layout == sim.StateLayout}
	rp.Scene = string(blob("scene name"))
	ng := rd.U32()
	prevLast := -1
	for i := uint32(0); i < ng && rd.Err == nil; i++ {
		g := &group{}
		g.step = int(rd.U64())
		g.n = int(rd.U32())
		g.dt = math.Float64frombits(rd.U64())
		if flags := rd.U32(); rd.Err == nil {
			if flags > 1 {
				return nil, fmt.Errorf("group %d: flags %#x", i, flags)
			}
			g.periodic = flags&1 != 0
		}
		g.edit = string(blob("edit"))
		g.names = blob("names")
		g.state = blob("keyframe")
		if len(g.state) == 0 {
			g.state = nil
		}
		ns := rd.U32()
		if rd.Err == nil && (ns == 0 || uint64(ns) > uint64(rd.Left())/12) {
			rd.Err = fmt.Errorf("group %d: %d steps", i, ns)
		}
		for k := uint32(0); k < ns && rd.Err == nil; k++ {
			g.hash = append(g.hash, rd.U64())
			g.disp = append(g.disp, blob("display poses"))
		}
		ne := rd.U32()
		if rd.Err == nil && ne != 0 && ne != ns {
			rd.Err = fmt.Errorf("group %d: exact poses of %d steps, the group has %d", i, ne, ns)
		}
		for k := uint32(0); k < ne && rd.Err == nil; k++ {
			g.exact = append(g.exact, blob("exact poses"))
		}
		if rd.Err != nil {
			break
		}
		if g.step < 0 || (i > 0 && g.step != prevLast+1) || g.n < 0 || !(g.dt > 0) {
			return nil, fmt.Errorf("group %d: step %d, %d bodies, dt %v: out of order or invalid", i, g.step, g.n, g.dt)
		}
		prevLast = g.last()
		if g.state == nil && (i == 0 || !g.periodic || rec.groups[i-1].n != g.n) {
			return nil, fmt.Errorf("group %d: no keyframe, and its steps do not follow from the group before", i)
		}
		g.bytes = g.size()
		rec.groups = append(rec.groups, g)
		rec.bytes += g.bytes
	}
	if rd.Err != nil {
		return nil, fmt.Errorf("damaged at byte %d: %v", rd.Off, rd.Err)
	}
	if rd.Off != len(body) {
		return nil, fmt.Errorf("%d bytes after the last group", len(body)-rd.Off)
	}
	if len(rec.groups) == 0 {
		return nil, errors.New("no recorded steps")
	}
	// Decode everything now, so a file that loads is whole.
	var st sim.State
	total := rec.Last() - rec.First() + 1
	for _, g := range rec.groups {
		if progress != nil {
			if err := progress(g.step-rec.First(), total); err != nil {
				return nil, err
			}
		}
		if _, _, err := rec.Names(g.step); err != nil {
			return nil, err
		}
		if rp.Resumable && g.state != nil {
			if _, err := rec.KeyState(g.step, &st); err != nil {
				return nil, err
			}
			if st.Len() != g.n || st.StepCount() != g.step {
				return nil, fmt.Errorf("keyframe at step %d: %d bodies at step %d, the group says %d", g.step, st.Len(), st.StepCount(), g.n)
			}
		}
		for s := g.step; s <= g.last(); s++ {
			if progress != nil && s > g.step {
				if err := progress(s-rec.First(), total); err != nil {
					return nil, err
				}
			}
			if err := rec.dispBits(g, s); err != nil {
				return nil, err
			}
			if g.exact != nil {
				b, err := rec.exactBits(g, s)
				if err != nil {
					return nil, err
				}
				if PoseHash(b) != g.hash[s-g.step] {
					return nil, fmt.Errorf("step %d: exact poses do not match their hash", s)
				}
			}
		}
	}
	rec.Budget = max(DefaultBudget, rec.bytes)
	rec.tail()
	return rp, nil
}
