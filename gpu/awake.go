package gpu

// awakeList is the list of the bodies a step moves, neither static nor asleep, in index order, made on
// the device (kernels/sleep.cu's tb_sleep_awake_mark and tb_sleep_awake_list, over the scan) after the
// waking, with no read-back. When some body sleeps, the body kernels of the step's solve and sleep
// stages run over it (tbBodyCount), so that a world that mostly sleeps launches them over its awake
// bodies: their grids are sized from the host's estimate of the list (Backend.movingEstimate),
// rounded up to an eighth of an octave (listGrid) so that a steady world keeps its graph, and each
// thread strides by the grid, so that a list longer than the estimate is still covered.
type awakeList struct {
	mark buffer // uint32 per body, and one: the marks, then their exclusive scan
	list buffer // int32 per body: the listed bodies' indices
	n    buffer // uint32: how many are listed
	scan scanner
	// on says the list was made for this step (some body sleeps); estimate is how many bodies the
	// host expects it to hold, which sizes the grids of the kernels that run over it.
	on       bool
	estimate int
}

// make builds the list of the bodies of bb that a step moves, which the host expects to be about
// estimate, and, when rest is not nil, the list of the others (static or asleep) in it.
func (a *awakeList) make(d device, bb *bodyBuffers, estimate int, rest *buffer) error {
	n := bb.n
	var restP ptr
	if rest != nil {
		if err := grow(d, rest, 4*max(n, 1)); err != nil {
			return err
		}
		restP = rest.p
	}
	for _, g := range []struct {
		b     *buffer
		bytes int
	}{{&a.mark, 4 * (n + 1)}, {&a.list, 4 * max(n, 1)}, {&a.n, 4}} {
		if err := grow(d, g.b, g.bytes); err != nil {
			return err
		}
	}
	k := kernelSet{d}
	if err := k.sleepAwakeMark(blocks(n+1, sleepThreads), sleepThreads, sleepAwakeMarkArgs{Flags: bb.flags.p,
		N: int32(n), Mark: a.mark.p}); err != nil {
		return err
	}
	if err := a.scan.run(d, a.mark.p, a.mark.p, n+1); err != nil {
		return err
	}
	if err := k.sleepAwakeList(blocks(n+1, sleepThreads), sleepThreads, sleepAwakeListArgs{Offsets: a.mark.p,
		N: int32(n), List: a.list.p, ListN: a.n.p, Rest: restP}); err != nil {
		return err
	}
	a.on, a.estimate = true, estimate
	return nil
}

// keep takes the list the last make left as this step's, expected to hold about estimate bodies: the
// caller knows that no body has fallen asleep or woken since it was made.
func (a *awakeList) keep(estimate int) {
	a.on, a.estimate = true, estimate
}

// listGrid is the blocks of threads threads that cover estimate bodies of n, rounded up to an eighth
// of an octave (a multiple of g/8 blocks, g the power of two at or above the blocks needed; at most
// those that cover n): a grid at most a quarter larger than the list it covers, of which a steady
// world, whose awake count drifts within a step of the eight, keeps the same.
func listGrid(estimate, n, threads int) int {
	want := blocks(max(min(estimate, n), 1), threads)
	g := 1
	for g < want {
		g *= 2
	}
	step := max(g/8, 1)
	return min((want+step-1)/step*step, blocks(max(n, 1), threads))
}

// args returns the list and its count for a body kernel's launch, and its grid of blocks of threads
// threads; without a list (no body sleeps) the kernel runs over all n bodies.
func (a *awakeList) args(n, threads int) (list, count ptr, grid int) {
	if !a.on {
		return 0, 0, blocks(max(n, 1), threads)
	}
	return a.list.p, a.n.p, listGrid(a.estimate, n, threads)
}

// release frees the list's buffers.
func (a *awakeList) release(d device) {
	for _, b := range []*buffer{&a.mark, &a.list, &a.n} {
		release(d, b)
	}
	a.scan.release(d)
	*a = awakeList{}
}
