package ui

import (
	"sync"

	"github.com/go-gl/glfw/v3.3/glfw"
)

type eventKind uint8

const (
	evMove eventKind = iota
	evButton
	evScroll
	evChar
	evKey
)

// inputEvent is one GLFW callback's event, queued until a frame takes it (App.feedInput).
type inputEvent struct {
	kind   eventKind
	x, y   float64 // cursor position, or wheel offsets
	button glfw.MouseButton
	key    glfw.Key
	act    glfw.Action
	mods   glfw.ModifierKey
	r      rune
}

// inputQueue holds the events GLFW delivered since the last frame took them. GLFW calls back on the
// main thread, inside PollEvents; the lock is for the tests, which queue from another goroutine.
type inputQueue struct {
	mu  sync.Mutex
	evs []inputEvent
}

func (q *inputQueue) add(e inputEvent) {
	q.mu.Lock()
	q.evs = append(q.evs, e)
	q.mu.Unlock()
}

// take returns the queued events and empties the queue.
func (q *inputQueue) take() []inputEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs := q.evs
	q.evs = nil
	return evs
}

// putBack returns events a frame did not take to the front of the queue.
func (q *inputQueue) putBack(evs []inputEvent) {
	if len(evs) == 0 {
		return
	}
	q.mu.Lock()
	q.evs = append(append([]inputEvent(nil), evs...), q.evs...)
	q.mu.Unlock()
}

// pending is the number of queued events.
func (q *inputQueue) pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.evs)
}
