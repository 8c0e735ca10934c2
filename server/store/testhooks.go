//go:build chatbus_testhooks

package store

import (
	"context"
	"sync"

	"go.etcd.io/bbolt"
)

// StallCommitter (test builds only: -tags chatbus_testhooks) blocks the
// committer goroutine inside a write transaction until release is called:
// every write, and Ping, waits meanwhile, as they would behind a disk
// that stopped answering. It returns once the committer is stuck.
func (s *Bolt) StallCommitter() (release func()) {
	stuck, free := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go s.write(context.Background(), func(*bbolt.Tx) error {
		once.Do(func() { close(stuck) })
		<-free
		return nil
	}, nil)
	<-stuck
	var rel sync.Once
	return func() { rel.Do(func() { close(free) }) }
}
