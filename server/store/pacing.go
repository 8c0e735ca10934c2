package store

import (
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"
)

// PaceWindow is one rate-limit window of a provider's outbound scheduler
// (server/outbound.WindowState): the limit's name, its scope key, and when
// its last calls were done, oldest first.
type PaceWindow struct {
	Limit string      `json:"limit"`
	Key   string      `json:"key,omitempty"`
	Times []time.Time `json:"times"`
}

// bPacing holds each provider's pacing windows: key = provider, value =
// its []PaceWindow as JSON. It is created by the first SavePacing: files
// made before it existed stay valid, and older programs ignore it.
var bPacing = []byte("pacing")

// SavePacing replaces the provider's saved pacing windows, so that a
// supervisor started after a crash (kill -9) paces as if it had not
// stopped. It queues the write and returns at once; the channel receives
// its outcome. Writes are made in the order they were queued.
func (s *Bolt) SavePacing(provider string, ws []PaceWindow) <-chan error {
	v, err := json.Marshal(ws)
	if err == nil && provider == "" {
		err = fmt.Errorf("save pacing: no provider: %w", ErrInvalid)
	}
	if err != nil {
		out := make(chan error, 1)
		out <- err
		return out
	}
	return s.writeAsync(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bPacing)
		if err != nil {
			return err
		}
		return b.Put([]byte(provider), v)
	})
}

// Pacing returns what SavePacing stored last for the provider (nil if
// nothing).
func (s *Bolt) Pacing(provider string) (ws []PaceWindow, err error) {
	err = s.view(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bPacing)
		if b == nil {
			return nil
		}
		v := b.Get([]byte(provider))
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &ws); err != nil {
			return fmt.Errorf("store %s: %w: pacing of %s: %v", s.path, ErrCorrupt, provider, err)
		}
		return nil
	})
	return ws, err
}
