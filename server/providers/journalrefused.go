package providers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// Updates the journal refuses. A batch whose journal write fails is not
// acknowledged: the provider keeps it at the platform and the pump tries
// again after a pause. A failure of the journal itself (a full disk, an
// I/O error) passes, and nothing is lost meanwhile; but one record the
// store refuses whatever the disk (a bound it keeps: ErrInvalid, an
// update larger than one etcd request, ErrTooLarge), or whose
// journalling panics, would fail every batch that holds it, and every
// update after it would wait at the platform for good. So after
// journalAttempts failures in a row the pump journals its batch one update
// at a time: a record refused alone is set aside as a dead letter (cause
// journal, the update as converted kept with it, so that a retry journals
// it again without its provider) and the others are journalled. A failure
// of any other kind, alone too, is the journal's: the pump holds the
// platform's cursor and the provider is not serving ("journal writes
// fail"), as before.

// journalAttempts is how many journal writes of a pump may fail in a row
// before it journals one update at a time.
const journalAttempts = 3

// errIngestPanic: journalling an update panicked.
var errIngestPanic = errors.New("journalling the update panicked")

// ErrDeadLetterNotJournalled: a dead letter the journal had refused,
// retried, was refused again (it stays, with the new error).
var ErrDeadLetterNotJournalled = errors.New("the journal refused the dead letter again")

// refusedRecord reports whether err, the failure to journal one update
// alone, is of that update rather than of the journal.
func refusedRecord(err error) bool {
	return errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrTooLarge) || errors.Is(err, errIngestPanic)
}

// ingestContained is sink.Ingest with its panic contained (errIngestPanic).
func ingestContained(ctx context.Context, sink Ingester, provider string, batch []hub.Inbound, cursor []byte) (through int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			stack := debug.Stack()
			stack = stack[:min(len(stack), 4<<10)]
			err = fmt.Errorf("%w: panic: %v\n%s", errIngestPanic, r, stack)
		}
	}()
	return sink.Ingest(ctx, provider, batch, cursor)
}

// journalEach journals raw (its conversion failures already set aside)
// one update at a time, each with the cursor of raw up to it: an update
// the store refuses (refusedRecord) is set aside as a dead letter; any
// other failure ends it (the caller holds the rest at the platform).
// through is the last update id made durable, journalled how many were
// journalled (not set aside).
func (m *Manager) journalEach(ctx context.Context, p *provider, sink Ingester, raw []*providerv1.Update, arrived []time.Time) (through int64, journalled int, err error) {
	for i, u := range raw {
		if u.GetConversionError() != "" {
			continue
		}
		in := inbound(u)
		in.Arrived = arrived[i]
		t, err := ingestContained(ctx, sink, p.spec.Name, []hub.Inbound{in}, batchCursor(raw[:i+1]))
		if err == nil {
			through = max(through, t)
			journalled++
			continue
		}
		if ctx.Err() != nil || !refusedRecord(err) {
			return through, journalled, err
		}
		d, derr := journalDeadLetter(p.spec.Name, u, err)
		if derr != nil {
			return through, journalled, derr
		}
		t, err = m.setAside(ctx, p, []store.DeadLetter{d})
		if err != nil {
			return through, journalled, err
		}
		through = max(through, t)
	}
	return through, journalled, nil
}

// journalDeadLetter is the dead letter of u, converted by provider, that
// the journal refused with why.
func journalDeadLetter(provider string, u *providerv1.Update, why error) (store.DeadLetter, error) {
	d := deadLetter(provider, u)
	if store.CheckDeadLetter(d) != nil && u.GetDedupId() != "" {
		// A dedup id longer than a key may be (which may be why the
		// journal refused it): the dead letter is keyed by its hash.
		sum := sha256.Sum256([]byte(u.GetDedupId()))
		d.ID = "sha256:" + hex.EncodeToString(sum[:])
	}
	d.Cause, d.Error = store.DeadLetterJournal, "the journal refused it: "+why.Error()
	// The converted update, less what the dead letter holds already (the
	// payload) and what a retry sets (update id, cursor).
	c := proto.CloneOf(u)
	c.Payload, c.UpdateId, c.Cursor = nil, 0, nil
	b, err := proto.Marshal(c)
	if err != nil {
		return store.DeadLetter{}, fmt.Errorf("dead letter %s: %w", d.ID, err)
	}
	d.Converted = b
	return d, nil
}

// converted is the update a journal dead letter d holds, as its provider
// converted it.
func converted(d store.DeadLetter) (*providerv1.Update, error) {
	u := &providerv1.Update{}
	if err := proto.Unmarshal(d.Converted, u); err != nil {
		return nil, fmt.Errorf("dead letter %s/%s: %w: %w", d.Provider, d.ID, store.ErrCorrupt, err)
	}
	u.Payload = d.Payload
	return u, nil
}
