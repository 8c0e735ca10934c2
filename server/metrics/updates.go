package metrics

import (
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// The recorders of inbound updates: what providers deliver, what the
// journal keeps, what reaches followers. The hub calls them (Ingest,
// Stream); the store's drop reports come through Dropped.

// UpdateReceived counts one update a provider delivered, of kind (the
// journal's Kind); allowed false (the sender is not
// on the allow-list) also counts it dropped as not_allowed.
func (m *Metrics) UpdateReceived(provider string, kind store.UpdateKind, allowed bool) {
	if m == nil {
		return
	}
	s := m.provs[provider]
	switch {
	case s != nil:
		s.receivedCounter(kind).Inc()
	default:
		m.updatesReceived.WithLabelValues(provider, kindLabel(kind)).Inc()
	}
	if !allowed {
		m.notAllowed.Inc()
	}
}

// Drop reasons of updates_dropped_total beside the store's bounds
// (count, bytes, age).
const (
	// DropNotAllowed: the sender is not on the provider's allow-list.
	DropNotAllowed = "not_allowed"
	// dropBindingDeleted: a deleted binding's held updates.
	dropBindingDeleted = "binding_deleted"
)

// Journalled counts a batch the journal took: offered updates were handed
// to it, stored are those it kept (the rest were duplicates), each routed
// to its binding or unrouted (BindingKey "").
func (m *Metrics) Journalled(provider string, offered int, stored []store.Update) {
	if m == nil {
		return
	}
	routed := 0
	for i := range stored {
		if stored[i].BindingKey != "" {
			routed++
		}
	}
	s := m.provs[provider]
	if s == nil {
		s = &providerSeries{routed: m.updatesRouted.WithLabelValues(provider),
			unrouted: m.updatesUnrouted.WithLabelValues(provider), duplicate: m.updatesDup.WithLabelValues(provider)}
	}
	if routed > 0 {
		s.routed.Add(float64(routed))
	}
	if n := len(stored) - routed; n > 0 {
		s.unrouted.Add(float64(n))
	}
	if n := offered - len(stored); n > 0 {
		s.duplicate.Add(float64(n))
	}
}

// Dropped counts n held updates a journal bound (or a deleted binding)
// discarded, with the store's reason (store.DropCount, …).
func (m *Metrics) Dropped(reason string, n int) {
	if m == nil || n <= 0 {
		return
	}
	switch reason {
	case store.DropCount, store.DropBytes, store.DropAge:
	case store.DropBindingDeleted:
		reason = dropBindingDeleted
	default:
		reason = "other"
	}
	m.updatesDropped.WithLabelValues(reason).Add(float64(n))
}

// Delivered observes one update sent on a follower's stream: the time
// since its provider received it (receivedAt). live says it was journalled
// after the stream opened; otherwise it was held and is replayed.
func (m *Metrics) Delivered(receivedAt time.Time, live bool) {
	if m == nil || receivedAt.IsZero() {
		return
	}
	d := max(m.cfg.Now().Sub(receivedAt), 0).Seconds()
	if live {
		m.deliveryLive.Observe(d)
	} else {
		m.deliveryReplay.Observe(d)
	}
}

// Transcribed counts one transcription by its status (see
// transcribe.Status.String).
func (m *Metrics) Transcribed(status string) {
	if m == nil {
		return
	}
	m.transcriptions.WithLabelValues(status).Inc()
}

// UpdateDeadLettered counts one update a provider could not convert, set
// aside as a dead letter.
func (m *Metrics) UpdateDeadLettered(provider string) {
	if m == nil {
		return
	}
	m.updatesDeadLettered.WithLabelValues(provider).Inc()
}
