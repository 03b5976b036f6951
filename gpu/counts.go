package gpu

import (
	"errors"
	"unsafe"
)

// Counts is what one step asked of the device: kernel launches (a graph's launch counts as one), explicit waits (sync), copies between
// host and device with their bytes, and copies and clears on the device. A download waits for the
// device as well (the driver's copies from the device are synchronous), so every download is a wait.
// They make a step's fixed cost measurable without a GPU: on the emulator the counts are the GPU's.
type Counts struct {
	Launches int
	Graphs   int // of the launches, those of a graph (a whole recorded sequence: graph.go)
	// Threads is the threads the kernels were launched with (grid x block, summed; a graph's, over its
	// launches): the work of a step's grids, which a kernel's early return for an idle thread (a
	// sleeping body, a slot past a list's count) makes cheap on a GPU but not free, and which the
	// emulator runs one by one.
	Threads       int64
	Syncs         int
	Uploads       int
	UploadBytes   int64
	Downloads     int
	DownloadBytes int64
	DeviceCopies  int // copies within the device
	Zeroes        int // clears of device memory
}

// since returns what was asked between the counts o and c (c less o, field by field).
func (c Counts) since(o Counts) Counts {
	return Counts{Launches: c.Launches - o.Launches, Graphs: c.Graphs - o.Graphs, Threads: c.Threads - o.Threads,
		Syncs:   c.Syncs - o.Syncs,
		Uploads: c.Uploads - o.Uploads, UploadBytes: c.UploadBytes - o.UploadBytes, Downloads: c.Downloads - o.Downloads,
		DownloadBytes: c.DownloadBytes - o.DownloadBytes, DeviceCopies: c.DeviceCopies - o.DeviceCopies,
		Zeroes: c.Zeroes - o.Zeroes}
}

// counting is a device that counts what is asked of it (Counts) and passes it on.
type counting struct {
	device
	c Counts
	// threads, when not nil, gains each launch's threads under its kernel's name: the split of
	// Counts.Threads by kernel that a measurement asks for (nil otherwise, so that a step pays no map).
	threads map[string]int64
}

func (d *counting) upload(dst ptr, src unsafe.Pointer, bytes int) error {
	d.c.Uploads++
	d.c.UploadBytes += int64(bytes)
	return d.device.upload(dst, src, bytes)
}

func (d *counting) download(dst unsafe.Pointer, src ptr, bytes int) error {
	d.c.Downloads++
	d.c.DownloadBytes += int64(bytes)
	return d.device.download(dst, src, bytes)
}

func (d *counting) copy(dst, src ptr, bytes int) error {
	d.c.DeviceCopies++
	return d.device.copy(dst, src, bytes)
}

func (d *counting) zero(dst ptr, bytes int) error {
	d.c.Zeroes++
	return d.device.zero(dst, bytes)
}

func (d *counting) launch(kernel string, grid, block int, args ...any) error {
	if grid > 0 {
		d.c.Launches++
		d.c.Threads += int64(grid) * int64(block)
		if d.threads != nil {
			d.threads[kernel] += int64(grid) * int64(block)
		}
	}
	return d.device.launch(kernel, grid, block, args...)
}

func (d *counting) sync() error {
	d.c.Syncs++
	return d.device.sync()
}

// errNoGraphs: the device below cannot make graphs.
var errNoGraphs = errors.New("gpu: the device makes no graphs")

// base returns the device that graphing and counting devices pass their work to (d itself otherwise).
func base(d device) device {
	for {
		switch w := d.(type) {
		case *counting:
			d = w.device
		case *graphing:
			d = w.device
		default:
			return d
		}
	}
}

// counterOf returns the counting device in d's chain, or nil.
func counterOf(d device) *counting {
	for {
		switch w := d.(type) {
		case *counting:
			return w
		case *graphing:
			d = w.device
		default:
			return nil
		}
	}
}
