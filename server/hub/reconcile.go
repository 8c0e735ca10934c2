package hub

import (
	"fmt"
	"strconv"
	"time"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/store"
)

// Reconcile marks offline, forgetting their identity, the bindings whose
// follower has not come back and that were not refreshed within
// ReconcileFresh, and realigns the slot cursors so freed slots are reused.
// It returns how many bindings it retired.
func (h *Hub) Reconcile() (int, error) {
	bs, err := h.store.ListBindings()
	if err != nil {
		return 0, err
	}
	now := h.cfg.Now()
	live := h.reg.Holders()
	freed := map[string][]string{} // by provider
	n := 0
	for _, b := range bs {
		if !h.retire(b, live, now) {
			continue
		}
		// Under the binding's lock, as it is now: a registration or a
		// thread change may have come first.
		unlock := h.locks.Lock(b.Key)
		b, err := h.store.GetBinding(b.Key)
		if err != nil || !h.retire(b, h.reg.Holders(), now) {
			unlock()
			continue
		}
		b.Status = store.StatusOffline
		b.LastAction = store.ActionRealityOffline
		b.InstanceID = ""
		err = h.putBinding(b)
		unlock()
		if err != nil {
			return n, err
		}
		n++
		if !b.Target.IsZero() && b.Slot != "" {
			freed[b.Target.Provider] = append(freed[b.Target.Provider], b.Slot)
		}
	}
	for provider, slots := range freed {
		if err := h.store.RealignCursor(provider, "", slotBefore(earliest(slots))); err != nil {
			return n, err
		}
	}
	h.publish(events.Reconciled, "", fmt.Sprintf("reconciliation: %d binding(s) offline", n),
		map[string]string{"offline": strconv.Itoa(n), "bindings": strconv.Itoa(len(bs))})
	return n, nil
}

// retire says whether reconciliation retires b: its follower is not back
// (not in live), it was not refreshed within ReconcileFresh, it was not
// retired already and does not wait for a handoff (its deadline decides).
func (h *Hub) retire(b store.Binding, live map[string]bool, now time.Time) bool {
	return !live[b.Key] && b.LastAction != store.ActionRealityOffline && b.Status != store.StatusSuspended &&
		now.Sub(b.Updated) >= h.cfg.ReconcileFresh
}

// earliest returns the first slot in allocation order (A < B < … < Z < AA).
func earliest(slots []string) string {
	best := slots[0]
	for _, s := range slots[1:] {
		if len(s) < len(best) || (len(s) == len(best) && s < best) {
			best = s
		}
	}
	return best
}

// slotBefore returns the slot preceding s in allocation order, "" before A.
func slotBefore(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] > 'A' {
			b[i]--
			return string(b)
		}
		b[i] = 'Z'
	}
	// s was A, AA, AAA…: the one before is one letter shorter.
	if len(b) == 1 {
		return ""
	}
	return string(b[1:])
}
