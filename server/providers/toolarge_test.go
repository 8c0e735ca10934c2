package providers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/chatbus/chatbus/internal/etcdtest"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/etcdstore"
)

// TestPumpSetsAnUpdateLargerThanEtcdTakesAside: over a cluster's store
// (etcd, its request limit 1.5 MiB), an update of 2 MiB (1 MiB of text,
// as much raw payload) would fail every write that holds it, for ever,
// and every update after it would wait at the platform. The pump sets it
// aside at once as a dead letter (cause journal, the reason said, its
// converted update kept but not its payload: both do not fit), every
// other update is journalled once, in order, and the stored cursor moves
// past them all. Retried, it is journalled as converted: its text
// reaches the thread.
func TestPumpSetsAnUpdateLargerThanEtcdTakesAside(t *testing.T) {
	ec := etcdtest.Start(t, 1)
	cli := ec.Client(t)
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	el := concurrency.NewElection(sess, "/chatbus/test/leader/fake")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := el.Campaign(ctx, "node"); err != nil {
		t.Fatal(err)
	}
	st, err := etcdstore.Open(ctx, cli, etcdstore.Options{Prefix: "/chatbus/test/state/",
		Fence: etcdstore.Fence{Key: el.Key(), Rev: el.Rev()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	e := newStoreEnv(t, st, func(st store.Store) Ingester {
		return hub.New(hub.Config{Store: st, Logger: zerolog.Nop()}).Intake()
	}, spec("fake", childSettings{Push: 8, Large: []int64{3}}))
	d := thirdSetAside(t, e)
	if d.Cause != store.DeadLetterJournal || d.PlatformUpdateID != 3 ||
		!strings.Contains(d.Error, "more than one etcd request may carry") ||
		!strings.Contains(d.Error, "payload of") || len(d.Payload) != 0 || len(d.Converted) < 1<<20 {
		t.Errorf("dead letter %s: %q, %d bytes of payload, %d converted", d.ID, d.Error, len(d.Payload), len(d.Converted))
	}
	if ok, why := e.m.Serving("fake"); !ok {
		t.Errorf("not serving (%s): an update too large for the store is not a failing journal", why)
	}
	// Retried, it is journalled as converted, without its raw payload
	// (which made it too large): the person's text reaches the thread.
	if _, err := e.m.RetryDeadLetter(ctxT(t), "fake", d.ID); err != nil {
		t.Fatalf("retry: %v", err)
	}
	got, err := st.Read("", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if u := got[len(got)-1]; len(got) != 8 || u.PlatformUpdateID != 3 || len(u.Text) != 1<<20 || len(u.Payload) != 0 {
		t.Errorf("after the retry: %d journalled, the last %d with %d bytes of text and %d of payload", len(got), u.PlatformUpdateID, len(u.Text), len(u.Payload))
	}
	if _, err := st.GetDeadLetter("fake", d.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the retry, the dead letter: %v; want it gone", err)
	}
}
