package store

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ErrFenced: the write was refused because the store's writer is no longer
// the one allowed to write (a clustered store whose supervisor lost its
// leadership). Nothing was written, and nothing this store writes will be
// accepted again: its owner must stop using it. The embedded store never
// returns it.
var ErrFenced = errors.New("fenced: this supervisor is no longer the leader")

// The helpers below let another Store backend (server/store/etcdstore)
// check and encode exactly as Bolt does, so that both accept the same
// records and refuse the same mistakes.

// Backend defaults, the same as Options' zero values mean for Bolt.
const (
	DefaultMaxSlots     = 26 * 27
	DefaultMaxSent      = 4096
	DefaultSeenMaxCount = 100000
)

// WithDefaults returns l with its zero fields set to their defaults
// (TotalBytes too).
func (l Limits) WithDefaults() Limits {
	l = l.withDefaults()
	if l.TotalBytes == 0 {
		l.TotalBytes = DefaultTotalBytes
	}
	return l
}

// SlotName is the i-th slot (from 0): A…Z, AA…AZ, BA…ZZ, AAA…
func SlotName(i int) string { return slotName(i) }

// SlotIndex is the inverse of SlotName; false for anything else.
func SlotIndex(name string) (int, bool) { return slotIndex(name) }

// CheckBinding refuses what PutBinding refuses before writing (ErrInvalid).
func CheckBinding(b Binding) error {
	if err := checkKey("binding key", b.Key); err != nil {
		return err
	}
	if !b.Status.Valid() {
		return fmt.Errorf("binding %q: status %q: %w", b.Key, b.Status, ErrInvalid)
	}
	if err := checkTarget(b.Target); err != nil {
		return fmt.Errorf("binding %q: %w", b.Key, err)
	}
	return nil
}

// CheckTarget refuses a target the store cannot hold (ErrInvalid).
func CheckTarget(t Target) error { return checkTarget(t) }

// CheckProvider refuses a provider name the store cannot hold (ErrInvalid).
func CheckProvider(p string) error { return checkProvider(p) }

// CheckKey refuses an empty or overlong key (ErrInvalid); what names it.
func CheckKey(what, key string) error { return checkKey(what, key) }

// CheckCall refuses what BeginCall refuses before writing (ErrInvalid).
func CheckCall(c CallRecord) error { return checkCall(c) }

// DedupKey is u's de-duplication key: DedupID, else PlatformUpdateID in
// decimal, else "" (never de-duplicated).
func (u *Update) DedupKey() string { return u.dedupKey() }

// EncodeUpdate is the journal's encoding of u (without Seq and
// BindingKey); its length is what Stats.Bytes counts.
func EncodeUpdate(u *Update) []byte { return encodeUpdate(u) }

// DecodeUpdate decodes what EncodeUpdate wrote.
func DecodeUpdate(v []byte) (Update, error) { return decodeUpdate(v) }

// CheckDeadLetter refuses what PutDeadLetters refuses (ErrInvalid).
func CheckDeadLetter(d DeadLetter) error {
	if err := checkProvider(d.Provider); err != nil {
		return err
	}
	return checkKey("dead letter id", d.ID)
}

// EncodeDeadLetter is the stored form of d, the same in every backend.
func EncodeDeadLetter(d DeadLetter) ([]byte, error) { return json.Marshal(d) }

// DecodeDeadLetter decodes what EncodeDeadLetter wrote.
func DecodeDeadLetter(v []byte) (DeadLetter, error) {
	var d DeadLetter
	if err := json.Unmarshal(v, &d); err != nil {
		return DeadLetter{}, fmt.Errorf("%w: dead letter: %w", ErrCorrupt, err)
	}
	return d, nil
}

// SortDeadLetters orders dls by provider, then by when they were
// received (then by id).
func SortDeadLetters(dls []DeadLetter) {
	slices.SortFunc(dls, func(a, b DeadLetter) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), a.ReceivedAt.Compare(b.ReceivedAt), cmp.Compare(a.ID, b.ID))
	})
}
