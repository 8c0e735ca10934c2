package providers

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// TestPumpSetsARecordTheJournalRefusesAside: an update whose record the
// store refuses (a dedup id longer than the journal keeps) fails every
// journal write that holds it. After a few attempts the pump journals
// one update at a time: the refused one is set aside as a dead letter
// (cause journal, with the reason), every other update is journalled
// once, in order, and the provider's cursor moves past them all: the
// stream does not stall. Retried, the journal refuses it again (it stays,
// one more retry counted); dropped, it is gone.
func TestPumpSetsARecordTheJournalRefusesAside(t *testing.T) {
	e := newSinkEnv(t, func(st store.Store) Ingester {
		return hub.New(hub.Config{Store: st, Logger: zerolog.Nop()}).Intake()
	}, spec("fake", childSettings{Push: 8, Refused: []int64{3}}))
	d := thirdSetAside(t, e)
	if d.Cause != store.DeadLetterJournal || d.PlatformUpdateID != 3 || !strings.HasPrefix(d.ID, "sha256:") ||
		!strings.Contains(d.Error, "the journal refused it") || !strings.Contains(d.Error, "dedup id") ||
		string(d.Payload) != `{"update_id":3}` || len(d.Converted) == 0 {
		t.Errorf("dead letter %+v", d)
	}
	if ok, why := e.m.Serving("fake"); !ok {
		t.Errorf("not serving (%s): a refused record is not a failing journal", why)
	}

	ctx := ctxT(t)
	if _, err := e.m.RetryDeadLetter(ctx, "fake", d.ID); !errors.Is(err, ErrDeadLetterNotJournalled) {
		t.Errorf("retry: %v, want ErrDeadLetterNotJournalled", err)
	}
	if again, err := e.st.GetDeadLetter("fake", d.ID); err != nil || again.Retries != 1 || again.Cause != store.DeadLetterJournal {
		t.Errorf("after a retry: %+v, %v; want it kept with 1 retry", again, err)
	}
	if err := e.m.DropDeadLetter("fake", d.ID); err != nil {
		t.Fatal(err)
	}
	if dls, _ := e.m.DeadLetters("fake"); len(dls) != 0 {
		t.Errorf("dropped, still %+v", dls)
	}
}

// thirdSetAside waits until e's provider "fake", pushing updates 1..8,
// has journalled 7 and set 1 aside, checks that the journal holds every
// update but 3, once, in order, and that the stored cursor is past them
// all, and returns the dead letter.
func thirdSetAside(t *testing.T, e *env) store.DeadLetter {
	t.Helper()
	testkit.Eventually(t, "7 updates journalled and 1 set aside", func() bool {
		s := e.m.Statuses()[0]
		return s.Ingested == 7 && e.m.provs["fake"].deadLettered.Load() == 1
	})
	got, err := e.st.Read("", 0, 100) // unrouted: no binding owns thread 7
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, u := range got {
		ids = append(ids, u.PlatformUpdateID)
	}
	if want := []int64{1, 2, 4, 5, 6, 7, 8}; !slices.Equal(ids, want) {
		t.Errorf("journalled %v, want %v (each once, in order, 3 set aside)", ids, want)
	}
	if cur, err := e.st.Cursor("fake"); err != nil || string(cur) != "9" {
		t.Errorf("stored cursor %q, %v; want 9 (past every update)", cur, err)
	}
	dls, err := e.m.DeadLetters("fake")
	if err != nil || len(dls) != 1 {
		t.Fatalf("dead letters %+v, %v; want 1", dls, err)
	}
	return dls[0]
}
