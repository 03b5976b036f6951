package workpool

// pause is the PAUSE instruction: a spin-wait hint that lets a hyper-threaded core's other thread run
// (and saves power) while a worker waits for the next loop or for a helper.
//
//go:noescape
func pause()
