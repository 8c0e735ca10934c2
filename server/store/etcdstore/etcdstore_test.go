package etcdstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/chatbus/chatbus/internal/etcdtest"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/etcdstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, etcdtest.LeakOptions()...) }

// leader wins the election of name on a session of ttl seconds and returns
// the fence and the session.
func leader(t *testing.T, cli *clientv3.Client, name string, ttl int) (etcdstore.Fence, *concurrency.Session) {
	t.Helper()
	sess, err := concurrency.NewSession(cli, concurrency.WithTTL(ttl))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	e := concurrency.NewElection(sess, "/chatbus/test/leader/"+name)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Campaign(ctx, "node"); err != nil {
		t.Fatal(err)
	}
	return etcdstore.Fence{Key: e.Key(), Rev: e.Rev()}, sess
}

func open(t *testing.T, cli *clientv3.Client, prefix string, f etcdstore.Fence, opts etcdstore.Options) *etcdstore.Store {
	t.Helper()
	opts.Prefix, opts.Fence = prefix, f
	s, err := etcdstore.Open(context.Background(), cli, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func msgs(key string, n, from int) []store.Update {
	var us []store.Update
	for i := range n {
		us = append(us, store.Update{BindingKey: key, PlatformUpdateID: int64(from + i), Chat: "-1", Thread: "7", Text: fmt.Sprint("m", from+i)})
	}
	return us
}

// TestStateSurvivesReopen: what one leader wrote, the next one reads at
// Open: bindings, slots, journals with their seqs and acks, the cursor,
// de-duplication, handoffs, call records, sent ids.
func TestStateSurvivesReopen(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/chatbus/test/state/", f, etcdstore.Options{})
	ctx := context.Background()

	tg := store.Target{Provider: "tg", Chat: "-1", Thread: "7"}
	if err := s.PutBinding(store.Binding{Key: "manual:1", Target: tg, Slot: "A", Status: store.StatusActive}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBinding(store.Binding{Key: "manual:2", Target: tg, Status: store.StatusActive}); !errors.Is(err, store.ErrTargetInUse) {
		t.Fatalf("second binding of one thread: %v", err)
	}
	slot, err := s.AllocateSlot("tg", "-1", func(s string) bool { return s == "A" })
	if err != nil || slot != "B" {
		t.Fatalf("slot %q, %v", slot, err)
	}
	got, err := s.Append(ctx, "tg", msgs("manual:1", 5, 100), []byte("105"))
	if err != nil || len(got) != 5 || got[0].Seq != 1 || got[4].Seq != 5 {
		t.Fatalf("append: %v %+v", err, got)
	}
	// A repeat of ids already journalled is skipped; new ones continue the seq.
	got, err = s.Append(ctx, "tg", msgs("manual:1", 4, 103), []byte("107"))
	if err != nil || len(got) != 2 || got[0].Seq != 6 || got[1].Seq != 7 {
		t.Fatalf("append with repeats: %v %+v", err, got)
	}
	if _, err := s.Append(ctx, "tg", []store.Update{{BindingKey: "nobody", PlatformUpdateID: 900, Chat: "-1"}}, nil); err != nil {
		t.Fatal(err)
	}
	if a, err := s.Ack("manual:1", 3); err != nil || a != 3 {
		t.Fatalf("ack: %d %v", a, err)
	}
	if _, err := s.Ack("manual:1", 8); !errors.Is(err, store.ErrAckBeyondLast) {
		t.Fatalf("ack beyond: %v", err)
	}
	if err := s.PutHandoff("tok", "manual:1", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	rec, created, err := s.BeginCall(store.CallRecord{BindingKey: "manual:1", Key: "k1", Provider: "tg", Method: "sendMessage", State: store.CallSending})
	if err != nil || !created || rec.Order != 1 {
		t.Fatalf("begin call: %v %v %+v", err, created, rec)
	}
	rec.State, rec.Result = store.CallDone, []byte(`{"ok":true}`)
	if err := s.SetCall(rec); err != nil {
		t.Fatal(err)
	}
	if err := <-s.RememberSent(tg, []store.Ref{{Kind: store.RefMessage, ID: "55"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// The next leader (same election here) opens what was written.
	r := open(t, cli, "/chatbus/test/state/", f, etcdstore.Options{})
	b, err := r.BindingByTarget(tg)
	if err != nil || b.Key != "manual:1" || b.Slot != "A" {
		t.Fatalf("binding: %+v %v", b, err)
	}
	if cur, _ := r.SlotCursor("tg", "-1"); cur != "B" {
		t.Errorf("slot cursor %q", cur)
	}
	us, err := r.Read("manual:1", 0, 0)
	if err != nil || len(us) != 4 || us[0].Seq != 4 || us[0].Text != "m103" || us[3].Seq != 7 || us[3].Text != "m106" {
		t.Fatalf("read after reopen: %v %+v", err, us)
	}
	st, _ := r.Stats("manual:1")
	if st.AckedThrough != 3 || st.LastSeq != 7 || st.Pending != 4 {
		t.Errorf("stats %+v", st)
	}
	if un, _ := r.ListUnrouted(0); len(un) != 1 || un[0].PlatformUpdateID != 900 {
		t.Errorf("unrouted %+v", un)
	}
	if cur, _ := r.Cursor("tg"); string(cur) != "107" {
		t.Errorf("cursor %q", cur)
	}
	if got, _ := r.Append(ctx, "tg", msgs("manual:1", 3, 105), nil); len(got) != 1 || got[0].Seq != 8 || got[0].Text != "m107" {
		t.Errorf("dedup after reopen: %+v", got)
	}
	if k, err := r.TakeHandoff("tok", time.Now()); err != nil || k != "manual:1" {
		t.Errorf("handoff: %q %v", k, err)
	}
	if c, err := r.GetCall("manual:1", "k1"); err != nil || c.State != store.CallDone || string(c.Result) != `{"ok":true}` {
		t.Errorf("call: %+v %v", c, err)
	}
	if _, created, _ := r.BeginCall(store.CallRecord{BindingKey: "manual:1", Key: "k1", Provider: "tg", State: store.CallSending}); created {
		t.Error("a repeated key made a second call record")
	}
	if refs, _ := r.Sent(tg); len(refs) != 1 || refs[0].ID != "55" {
		t.Errorf("sent %+v", refs)
	}
	if err := r.DeleteBinding("manual:1"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r2 := open(t, cli, "/chatbus/test/state/", f, etcdstore.Options{})
	if us, _ := r2.Read("manual:1", 0, 0); len(us) != 0 {
		t.Errorf("journal of a deleted binding: %+v", us)
	}
}

// TestChangedWakes: a waiter on a binding's journal is woken by an Append.
func TestChangedWakes(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{})
	if err := s.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatal(err)
	}
	ch := s.Changed("k", 0)
	select {
	case <-ch:
		t.Fatal("woken before anything was appended")
	default:
	}
	if _, err := s.Append(context.Background(), "tg", msgs("k", 1, 1), nil); err != nil {
		t.Fatal(err)
	}
	<-ch
}

// TestRetention: the count bound drops the oldest and the floor survives
// a reopen.
func TestRetention(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	var drops []string
	s := open(t, cli, "/p/", f, etcdstore.Options{Limits: store.Limits{MaxCount: 3},
		OnDrop: func(k string, n int, reason string) { drops = append(drops, fmt.Sprint(k, n, reason)) }})
	if err := s.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Append(context.Background(), "tg", msgs("k", 2, 10*i+1), nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(drops) != 2 || drops[0] != "k1count" {
		t.Errorf("drops %v", drops)
	}
	s.Close()
	r := open(t, cli, "/p/", f, etcdstore.Options{Limits: store.Limits{MaxCount: 3}})
	us, _ := r.Read("k", 0, 0)
	if len(us) != 3 || us[0].Seq != 4 {
		t.Errorf("after reopen: %+v", us)
	}
	if st, _ := r.Stats("k"); st.Dropped != 3 {
		t.Errorf("dropped %d", st.Dropped)
	}
}

// TestDeposedLeaderIsFenced: a leader whose lease ran out (its process was
// paused, say) while another won cannot write: the transaction is refused,
// nothing of it reaches etcd, OnFenced is called, and the store refuses
// everything after.
func TestDeposedLeaderIsFenced(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	fa, sa := leader(t, cli, "tg", 5)
	fenced := make(chan struct{})
	a := open(t, cli, "/p/", fa, etcdstore.Options{OnFenced: func() { close(fenced) }})
	if err := a.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(context.Background(), "tg", msgs("k", 1, 1), []byte("2")); err != nil {
		t.Fatal(err)
	}
	// A's lease ends as if it had expired (revoked: the same deletion of
	// its key, without the wait), and B wins.
	if _, err := cli.Revoke(context.Background(), sa.Lease()); err != nil {
		t.Fatal(err)
	}
	fb, _ := leader(t, cli, "tg", 5)
	if fb.Rev == fa.Rev {
		t.Fatal("the new leadership has the old revision")
	}
	b := open(t, cli, "/p/", fb, etcdstore.Options{})

	// A wakes and writes: refused, nothing applied.
	_, err := a.Append(context.Background(), "tg", msgs("k", 1, 2), []byte("3"))
	if !errors.Is(err, store.ErrFenced) {
		t.Fatalf("deposed leader's append: %v", err)
	}
	<-fenced
	if err := a.PutBinding(store.Binding{Key: "x", Status: store.StatusActive}); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("deposed leader's next write: %v", err)
	}
	resp, err := cli.Get(context.Background(), "/p/c/tg")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "2" {
		t.Fatalf("cursor in etcd after the refused write: %+v %v", resp, err)
	}
	if st, _ := a.Stats("k"); st.LastSeq != 1 {
		t.Errorf("deposed leader's memory changed by the refused write: %+v", st)
	}
	// The new leader goes on from the fenced state.
	got, err := b.Append(context.Background(), "tg", msgs("k", 1, 2), []byte("3"))
	if err != nil || len(got) != 1 || got[0].Seq != 2 {
		t.Fatalf("new leader's append: %v %+v", err, got)
	}
}

// TestAckOfManyBatches: an ack that passes more stored batches than one
// transaction may carry succeeds, and their keys are gone from etcd.
// (busbench's cluster phase found it refused: one transaction held every
// deletion.)
func TestAckOfManyBatches(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{MaxTxnOps: 4})
	if err := s.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := s.Append(context.Background(), "tg", msgs("k", 1, i+1), nil); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := s.Ack("k", 10); err != nil || a != 10 {
		t.Fatalf("ack of 10 batches: %d %v", a, err)
	}
	resp, err := cli.Get(context.Background(), "/p/j/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 0 {
		t.Fatalf("journal keys left after the ack: %v %v", resp.Count, err)
	}
}

// TestOrphanJournalDeletedAtOpen: a journal whose binding is gone (its
// deletion was cut short between the two) is deleted when the next leader
// opens the store, as the embedded store does.
func TestOrphanJournalDeletedAtOpen(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{})
	if err := s.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(context.Background(), "tg", msgs("k", 2, 1), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The binding alone goes, as a cut-short deletion leaves it.
	if _, err := cli.Delete(context.Background(), "/p/b/", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	r := open(t, cli, "/p/", f, etcdstore.Options{})
	if st, _ := r.Stats("k"); st.Pending != 0 {
		t.Errorf("orphan journal kept: %+v", st)
	}
	for _, pfx := range []string{"/p/j/", "/p/q/"} {
		resp, err := cli.Get(context.Background(), pfx, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil || resp.Count != 0 {
			t.Errorf("%s keys left in etcd: %d %v", pfx, resp.Count, err)
		}
	}
}

// TestAppendAcrossManyBindings: a batch touching more bindings than one
// transaction may carry is journalled in several, the cursor with the
// last; every update gets its seq, and a repeat of the batch is
// de-duplicated.
func TestAppendAcrossManyBindings(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{MaxTxnOps: 5})
	var batch []store.Update
	for i := range 6 {
		key := fmt.Sprint("k", i)
		if err := s.PutBinding(store.Binding{Key: key, Status: store.StatusActive}); err != nil {
			t.Fatal(err)
		}
		batch = append(batch, msgs(key, 2, 10*i+1)...)
	}
	got, err := s.Append(context.Background(), "tg", batch, []byte("99"))
	if err != nil || len(got) != 12 {
		t.Fatalf("append over 6 bindings: %d, %v", len(got), err)
	}
	if again, err := s.Append(context.Background(), "tg", batch, []byte("99")); err != nil || len(again) != 0 {
		t.Fatalf("the batch again: %d, %v", len(again), err)
	}
	s.Close()
	r := open(t, cli, "/p/", f, etcdstore.Options{MaxTxnOps: 5})
	for i := range 6 {
		us, _ := r.Read(fmt.Sprint("k", i), 0, 0)
		if len(us) != 2 || us[0].Seq != 1 || us[1].Seq != 2 || us[0].PlatformUpdateID != int64(10*i+1) {
			t.Errorf("k%d after reopen: %+v", i, us)
		}
	}
	if cur, _ := r.Cursor("tg"); string(cur) != "99" {
		t.Errorf("cursor %q", cur)
	}
}

// TestAppendLargerThanOneRequest: a backlog batch of 4,096 updates with
// their raw payloads (about 4 MiB, over etcd's 1.5 MiB request limit) on
// one binding is written in as many transactions as the limit needs, the
// cursor with the last; reopened, every update is there, in order.
func TestAppendLargerThanOneRequest(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{})
	payload := make([]byte, 1000)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	batch := msgs("", 4096, 1)
	for i := range batch {
		batch[i].Payload = payload
	}
	got, err := s.Append(context.Background(), "tg", batch, []byte("4096"))
	if err != nil || len(got) != len(batch) {
		t.Fatalf("append of a 4 MiB batch: %d, %v", len(got), err)
	}
	s.Close()
	r := open(t, cli, "/p/", f, etcdstore.Options{})
	us, err := r.Read("", 0, 0)
	if err != nil || len(us) != len(batch) {
		t.Fatalf("after reopen: %d updates, %v", len(us), err)
	}
	for i, u := range us {
		if u.Seq != uint64(i+1) || u.PlatformUpdateID != int64(i+1) || len(u.Payload) != len(payload) {
			t.Fatalf("update %d after reopen: seq %d, id %d, %d bytes", i, u.Seq, u.PlatformUpdateID, len(u.Payload))
		}
	}
	if cur, _ := r.Cursor("tg"); string(cur) != "4096" {
		t.Errorf("cursor %q", cur)
	}
}

// TestStalledEndpointIsTriedAgainElsewhere: an etcd endpoint that stops
// answering on a connection that looks alive (a member whose raft leader
// died, a dead link) costs a transaction a try of TryTimeout, not the
// whole write's bound: it is tried again, on the client's other endpoint.
func TestStalledEndpointIsTriedAgainElsewhere(t *testing.T) {
	c := etcdtest.Start(t, 1)
	f, _ := leader(t, c.Client(t), "tg", 5)
	fw := etcdtest.Forward(t, strings.TrimPrefix(c.Endpoints[0], "http://"))
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{fw.URL(), c.Endpoints[0]}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	var retries int
	var mu sync.Mutex
	s := open(t, cli, "/p/", f, etcdstore.Options{Timeout: 8 * time.Second, TryTimeout: 500 * time.Millisecond,
		OnRetry: func(error) { mu.Lock(); retries++; mu.Unlock() }})
	put := func(i int) error {
		return s.PutBinding(store.Binding{Key: fmt.Sprint("k", i), Status: store.StatusActive})
	}
	for i := range 4 { // both endpoints in use
		if err := put(i); err != nil {
			t.Fatal(err)
		}
	}
	fw.Freeze()
	for i := 4; i < 12; i++ {
		if err := put(i); err != nil {
			t.Fatalf("write %d with one endpoint stalled: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if retries == 0 {
		t.Errorf("no write went to the stalled endpoint: the test proves nothing")
	}
}

// TestUnavailableEtcdIsTriedAgain: a transaction etcd answers unavailable
// (here: "leader changed", as during an election of etcd's own) is tried
// again until it goes through, and each try again is reported; a
// transaction refused by the fence is not tried again.
func TestUnavailableEtcdIsTriedAgain(t *testing.T) {
	c := etcdtest.Start(t, 1)
	// The next transactions fail as etcd fails them mid-election, as many
	// as failing says.
	var mu sync.Mutex
	failing := 0
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 10 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			mu.Lock()
			fail := method == "/etcdserverpb.KV/Txn" && failing > 0
			if fail {
				failing--
			}
			mu.Unlock()
			if fail {
				return rpctypes.ErrGRPCLeaderChanged
			}
			return invoker(ctx, method, req, reply, cc, opts...)
		})}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	f, sess := leader(t, cli, "tg", 5)
	var retries []error
	var commits []error
	s := open(t, cli, "/p/", f, etcdstore.Options{
		OnRetry:  func(err error) { retries = append(retries, err) },
		OnCommit: func(_ int, _ time.Duration, err error) { commits = append(commits, err) },
	})
	mu.Lock()
	failing = 3
	mu.Unlock()
	if err := s.PutBinding(store.Binding{Key: "k", Status: store.StatusActive}); err != nil {
		t.Fatalf("a write while etcd elects: %v", err)
	}
	if len(retries) != 3 || !errors.Is(retries[0], rpctypes.ErrLeaderChanged) || len(commits) != 1 || commits[0] != nil {
		t.Errorf("retries %v, commits %v: want 3 tries again and one transaction, committed", retries, commits)
	}
	if resp, err := cli.Get(context.Background(), "/p/b/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || resp.Count != 1 {
		t.Errorf("bindings in etcd: %v %v", resp, err)
	}

	// Deposed: refused at once, not tried again.
	retries = nil
	if _, err := cli.Revoke(context.Background(), sess.Lease()); err != nil {
		t.Fatal(err)
	}
	if err := s.PutBinding(store.Binding{Key: "x", Status: store.StatusActive}); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a deposed leader's write: %v", err)
	}
	if len(retries) != 0 {
		t.Errorf("a fenced write was tried again: %v", retries)
	}
}

// TestUpdateLargerThanOneRequest: an update larger than one etcd request
// may carry (MaxRequestBytes, 64 KiB here) is refused with ErrTooLarge,
// the batch that holds it with it, nothing of it written; one that fits
// alone, though over half the limit, is written. A dead letter too large
// is kept without its payload, then without its converted update, and
// more dead letters than one transaction may carry are written in
// several.
func TestUpdateLargerThanOneRequest(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, _ := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{MaxRequestBytes: 64 << 10})
	ctx := context.Background()

	batch := msgs("", 3, 1)
	batch[1].Text = strings.Repeat("y", 100<<10)
	if _, err := s.Append(ctx, "tg", batch, []byte("3")); !errors.Is(err, store.ErrTooLarge) || !strings.Contains(err.Error(), "update 2 ") {
		t.Fatalf("append with an update of 100 KiB: %v, want ErrTooLarge naming update 2", err)
	}
	if us, _ := s.Read("", 0, 0); len(us) != 0 {
		t.Errorf("%d updates journalled by a refused batch", len(us))
	}
	if cur, _ := s.Cursor("tg"); cur != nil {
		t.Errorf("cursor %q after a refused batch", cur)
	}
	batch[1].Text = strings.Repeat("y", 40<<10) // over half the limit, within it
	if got, err := s.Append(ctx, "tg", batch, []byte("3")); err != nil || len(got) != 3 {
		t.Fatalf("append with an update of 40 KiB: %d, %v", len(got), err)
	}

	big := bytes.Repeat([]byte("z"), 100<<10)
	dls := []store.DeadLetter{
		{Provider: "tg", ID: "payload", Error: "e", Payload: big, Converted: []byte("c")},
		{Provider: "tg", ID: "both", Error: "e", Payload: big, Converted: big},
	}
	for i := range 200 {
		dls = append(dls, store.DeadLetter{Provider: "tg", ID: fmt.Sprint("small-", i), Error: "e", Payload: []byte("p")})
	}
	if err := s.PutDeadLetters(ctx, dls); err != nil {
		t.Fatalf("put dead letters: %v", err)
	}
	s.Close()
	r := open(t, cli, "/p/", f, etcdstore.Options{MaxRequestBytes: 64 << 10})
	all, err := r.DeadLetters("tg")
	if err != nil || len(all) != len(dls) {
		t.Fatalf("after reopen: %d dead letters, %v; want %d", len(all), err, len(dls))
	}
	for _, tc := range []struct {
		id               string
		payload, convert int
		says             []string
	}{
		{"payload", 0, 1, []string{"payload of 102400 bytes is not kept"}},
		{"both", 0, 0, []string{"payload of 102400 bytes is not kept", "converted update of 102400 bytes is not kept"}},
		{"small-7", 1, 0, nil},
	} {
		d, err := r.GetDeadLetter("tg", tc.id)
		if err != nil || len(d.Payload) != tc.payload || len(d.Converted) != tc.convert {
			t.Errorf("dead letter %s: %d bytes of payload, %d converted, %v", tc.id, len(d.Payload), len(d.Converted), err)
		}
		for _, s := range tc.says {
			if !strings.Contains(d.Error, s) {
				t.Errorf("dead letter %s: %q does not say %q", tc.id, d.Error, s)
			}
		}
	}
}

// TestPacingSurvivesFailover: the outbound pacing windows a leader saves
// (as the Bolt store keeps them across a restart) are what the next
// leader reads at Open, the latest of quick saves winning; a deposed
// leader's save is refused by the fence.
func TestPacingSurvivesFailover(t *testing.T) {
	c := etcdtest.Start(t, 1)
	cli := c.Client(t)
	f, sess := leader(t, cli, "tg", 5)
	s := open(t, cli, "/p/", f, etcdstore.Options{})
	at := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	window := func(n int) []store.PaceWindow {
		ws := []store.PaceWindow{{Limit: "chat", Key: "-100"}}
		for i := range n {
			ws[0].Times = append(ws[0].Times, at.Add(time.Duration(i)*time.Second))
		}
		return ws
	}
	var last <-chan error
	for n := 1; n <= 20; n++ {
		last = s.SavePacing("tg", window(n))
	}
	if err := <-last; err != nil {
		t.Fatalf("save pacing: %v", err)
	}
	if err := <-s.SavePacing("", nil); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("save pacing of no provider: %v, want ErrInvalid", err)
	}
	if ws, err := s.Pacing("tg"); err != nil || len(ws) != 1 || len(ws[0].Times) != 20 {
		t.Fatalf("pacing: %+v, %v; want the last save's 20 times", ws, err)
	}

	// The leadership passes to another: it reads the windows; the
	// deposed store's save is refused.
	sess.Close()
	f2, _ := leader(t, cli, "tg", 5)
	s2 := open(t, cli, "/p/", f2, etcdstore.Options{})
	ws, err := s2.Pacing("tg")
	if err != nil || len(ws) != 1 || ws[0].Limit != "chat" || ws[0].Key != "-100" || len(ws[0].Times) != 20 || !ws[0].Times[19].Equal(at.Add(19*time.Second)) {
		t.Fatalf("the next leader's pacing: %+v, %v", ws, err)
	}
	if err := <-s.SavePacing("tg", window(1)); !errors.Is(err, store.ErrFenced) {
		t.Errorf("the deposed leader's save: %v, want ErrFenced", err)
	}
	if ws, _ := s2.Pacing("tg"); len(ws) != 1 || len(ws[0].Times) != 20 {
		t.Errorf("after the deposed leader's save: %+v", ws)
	}
}
