// Package testkit holds the small fakes several packages' tests share: a
// clock the test sets, and a recorder of a store's drop reports. Tests
// only; nothing of the product imports it.
package testkit

import (
	"sync"
	"time"
)

// Clock is a clock a test moves by hand; its Now is a func() time.Time for
// the options that take one.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Drop is one OnDrop report: n updates of key dropped for reason.
type Drop struct {
	Key    string
	N      int
	Reason string
}

// DropLog records OnDrop reports; its OnDrop is the callback.
type DropLog struct {
	mu    sync.Mutex
	drops []Drop
}

// OnDrop records a report.
func (d *DropLog) OnDrop(key string, n int, reason string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drops = append(d.drops, Drop{key, n, reason})
}

// Take returns the reports recorded since the last Take.
func (d *DropLog) Take() []Drop {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.drops
	d.drops = nil
	return out
}
