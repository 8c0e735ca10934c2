//go:build chatbus_testhooks

package server

import (
	"errors"

	"github.com/chatbus/chatbus/server/store"
)

// StallStore (test builds only: -tags chatbus_testhooks) blocks the store's
// committer until release is called; see store.Bolt.StallCommitter.
func (s *Server) StallStore() (release func(), err error) {
	b, ok := s.store.(*store.Bolt)
	if !ok {
		return nil, errors.New("the store is not a store.Bolt")
	}
	return b.StallCommitter(), nil
}
