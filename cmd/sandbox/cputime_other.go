//go:build !unix

package main

import "time"

// cpuTime is 0 where the process's CPU time is not read (getrusage is Unix's).
func cpuTime() time.Duration { return 0 }
