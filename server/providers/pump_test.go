package providers

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// scriptedUpdates is a provider child's Updates that sends its messages
// in order, then waits for the ack of the last id and closes the stream.
type scriptedUpdates struct {
	providerv1.UnimplementedProviderServiceServer
	msgs []*providerv1.UpdatesResponse
	last int64

	mu    sync.Mutex
	start *providerv1.UpdatesRequest_Start
	acks  []int64
}

func (s *scriptedUpdates) Updates(stream grpc.BidiStreamingServer[providerv1.UpdatesRequest, providerv1.UpdatesResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.start = first.GetStart()
	s.mu.Unlock()
	for _, m := range s.msgs {
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	for {
		req, err := stream.Recv()
		if err != nil {
			return err
		}
		id := req.GetAck().GetUpdateId()
		s.mu.Lock()
		s.acks = append(s.acks, id)
		s.mu.Unlock()
		if id >= s.last {
			return nil // the supervisor sees io.EOF
		}
	}
}

// recordingIngester journals nothing: it records each batch's ids and
// the largest capacity a batch's buffer had.
type recordingIngester struct {
	mu      sync.Mutex
	batches [][]int64
	cursors []string
	maxCap  int
}

func (r *recordingIngester) Ingest(_ context.Context, _ string, batch []hub.Inbound, cursor []byte) (int64, error) {
	ids := make([]int64, len(batch))
	for i, b := range batch {
		ids[i] = b.Update.PlatformUpdateID
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, ids)
	r.cursors = append(r.cursors, string(cursor))
	r.maxCap = max(r.maxCap, cap(batch))
	return ids[len(ids)-1], nil
}

// cursorStore is a Store whose only method used here is Cursor.
type cursorStore struct{ store.Store }

func (cursorStore) Cursor(string) ([]byte, error) { return nil, nil }

func upd(id int64) *providerv1.Update {
	return &providerv1.Update{UpdateId: id, Chat: "-100", Thread: "7", Allowed: true}
}

func upds(ids ...int64) []*providerv1.Update {
	out := make([]*providerv1.Update, len(ids))
	for i, id := range ids {
		out[i] = upd(id)
	}
	return out
}

// TestPumpReadsBatches: the pump takes each message's batch, skips an
// empty one, splits one larger than IngestBatch in order, journals every
// update once and acknowledges through the last.
func TestPumpReadsBatches(t *testing.T) {
	msgs := []*providerv1.UpdatesResponse{
		{Updates: upds(1)},
		{Updates: upds(2, 3)},
		{}, // nothing: skipped
		{Updates: upds(4, 5, 6)},
		{Updates: upds(7, 8, 9, 10, 11)}, // more than IngestBatch
		{Updates: upds(12)},
	}
	prov := &scriptedUpdates{msgs: msgs, last: 12}
	ing := pumpScript(t, prov, 3)
	ing.mu.Lock()
	defer ing.mu.Unlock()
	var all []int64
	for _, b := range ing.batches {
		if len(b) > 3 {
			t.Errorf("a journal batch of %d updates, IngestBatch is 3: %v", len(b), ing.batches)
		}
		all = append(all, b...)
	}
	for i, id := range all {
		if id != int64(i+1) {
			t.Fatalf("journalled %v (batches %v), want 1..12 once each, in order", all, ing.batches)
		}
	}
	if len(all) != 12 {
		t.Fatalf("journalled %d updates (%v), want 12", len(all), all)
	}
	for i, c := range ing.cursors {
		b := ing.batches[i]
		if want := strconv.FormatInt(b[len(b)-1]+1, 10); c != want {
			t.Errorf("batch %v stored cursor %q, want %q (the last id + 1)", b, c, want)
		}
	}
	if len(prov.acks) != len(ing.batches) || prov.acks[len(prov.acks)-1] != 12 {
		t.Errorf("acks %v for batches %v: want one per batch, through 12", prov.acks, ing.batches)
	}
}

// pumpScript runs one pump stream (IngestBatch ingestBatch) from prov
// until prov closes it, and returns what the pump journalled.
func pumpScript(t *testing.T, prov *scriptedUpdates, ingestBatch int) *recordingIngester {
	t.Helper()
	return pumpScriptOn(t, prov, ingestBatch, cursorStore{})
}

// serveScript serves prov on a Unix socket and returns a connection to it.
func serveScript(t *testing.T, prov providerv1.ProviderServiceServer) *grpc.ClientConn {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	providerv1.RegisterProviderServiceServer(srv, prov)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// pumpManager is a Manager of one provider "x" (never started) over st.
func pumpManager(t *testing.T, st store.Store, ingestBatch int) *Manager {
	t.Helper()
	m, err := New(Config{Specs: []Spec{{Name: "x", Binary: "/nonexistent/provider-x"}}, SocketDir: t.TempDir(),
		Store: st, IngestBatch: ingestBatch, Events: events.NewHub(zerolog.Nop())})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// pumpScriptOn is pumpScript with the store st.
func pumpScriptOn(t *testing.T, prov *scriptedUpdates, ingestBatch int, st store.Store) *recordingIngester {
	t.Helper()
	conn := serveScript(t, prov)

	m := pumpManager(t, st, ingestBatch)
	ing := &recordingIngester{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	progressed, err := m.stream(ctx, m.provs["x"], providerv1.NewProviderServiceClient(conn), ing)
	if err != nil || !progressed {
		t.Fatalf("stream = %v, %v; want progressed, nil (the provider closed its side)", progressed, err)
	}
	return ing
}

// TestPumpBuffersGrowWithWhatArrives: the pump's batch buffers start small
// and grow to what arrives, never past IngestBatch: a provider that sends
// a few updates at a time does not keep IngestBatch records (1 MiB at the
// default 4096) live for as long as it runs; a large message still makes
// batches of IngestBatch.
func TestPumpBuffersGrowWithWhatArrives(t *testing.T) {
	big := make([]int64, 300)
	for i := range big {
		big[i] = int64(i + 4)
	}
	tests := []struct {
		name        string
		msgs        []*providerv1.UpdatesResponse
		last        int64
		ingestBatch int
		maxCap      int // at most
		largest     int // the largest batch journalled
	}{
		{name: "a few at a time", msgs: []*providerv1.UpdatesResponse{{Updates: upds(1)}, {Updates: upds(2, 3)}},
			last: 3, ingestBatch: 4096, maxCap: pumpStartCap, largest: 2},
		{name: "more than the first capacity", msgs: []*providerv1.UpdatesResponse{{Updates: upds(1, 2, 3)}, {Updates: upds(big...)}},
			last: 303, ingestBatch: 4096, maxCap: 4096, largest: 300},
		{name: "split at IngestBatch", msgs: []*providerv1.UpdatesResponse{{Updates: upds(big...)}},
			last: 303, ingestBatch: 100, maxCap: 100, largest: 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ing := pumpScript(t, &scriptedUpdates{msgs: tc.msgs, last: tc.last}, tc.ingestBatch)
			ing.mu.Lock()
			defer ing.mu.Unlock()
			largest := 0
			for _, b := range ing.batches {
				largest = max(largest, len(b))
			}
			if ing.maxCap > tc.maxCap || largest > tc.ingestBatch {
				t.Errorf("batch buffer capacity up to %d (want at most %d), largest batch %d (IngestBatch %d)",
					ing.maxCap, tc.maxCap, largest, tc.ingestBatch)
			}
			if tc.largest == tc.ingestBatch && largest != tc.largest {
				t.Errorf("largest batch %d, want %d (IngestBatch)", largest, tc.largest)
			}
		})
	}
}

// deadStore records the dead letters put; Cursor says none.
type deadStore struct {
	cursorStore
	mu   sync.Mutex
	dead []store.DeadLetter
}

func (d *deadStore) PutDeadLetters(_ context.Context, dls []store.DeadLetter) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = append(d.dead, dls...)
	return nil
}

// TestPumpSetsDeadLettersAside: an update its provider could not convert
// is kept as a dead letter before the batch is acknowledged, never
// journalled, and the acknowledgement goes past it (also when a batch
// is only dead letters): the stream goes on.
func TestPumpSetsDeadLettersAside(t *testing.T) {
	dead := func(id int64) *providerv1.Update {
		return &providerv1.Update{UpdateId: id, DedupId: "d" + strconv.FormatInt(id, 10), ConversionError: "cannot decode", Payload: []byte("raw")}
	}
	msgs := []*providerv1.UpdatesResponse{
		{Updates: []*providerv1.Update{upd(1), dead(2), upd(3)}},
		{Updates: []*providerv1.Update{upd(4), dead(5)}},
		{Updates: []*providerv1.Update{dead(6)}},
		{Updates: upds(7)},
	}
	prov := &scriptedUpdates{msgs: msgs, last: 7}
	st := &deadStore{}
	ing := pumpScriptOn(t, prov, 1, st)
	var journalled []int64
	for _, b := range ing.batches {
		journalled = append(journalled, b...)
	}
	if want := []int64{1, 3, 4, 7}; !slices.Equal(journalled, want) {
		t.Errorf("journalled %v, want %v", journalled, want)
	}
	var ids []string
	for _, d := range st.dead {
		if d.Provider != "x" || d.Error != "cannot decode" || string(d.Payload) != "raw" {
			t.Errorf("dead letter %+v", d)
		}
		ids = append(ids, d.ID)
	}
	if want := []string{"d2", "d5", "d6"}; !slices.Equal(ids, want) {
		t.Errorf("dead letters %v, want %v", ids, want)
	}
	prov.mu.Lock()
	defer prov.mu.Unlock()
	// One update a batch: a batch of only a dead letter is acknowledged
	// too.
	if want := []int64{1, 2, 3, 4, 5, 6, 7}; !slices.Equal(prov.acks, want) {
		t.Errorf("acks %v, want %v (one a batch)", prov.acks, want)
	}
}

// gatedIngester is a recordingIngester whose first Ingest waits for open.
type gatedIngester struct {
	recordingIngester
	open chan struct{}
}

func (g *gatedIngester) Ingest(ctx context.Context, provider string, batch []hub.Inbound, cursor []byte) (int64, error) {
	<-g.open
	return g.recordingIngester.Ingest(ctx, provider, batch, cursor)
}

// TestPumpBoundedByBytes: while the journal is slow, the pump reads ahead
// of it at most pumpBytes of updates (not IngestBatch messages of up to 4
// MiB each), then waits; all of it is journalled once the journal goes on.
func TestPumpBoundedByBytes(t *testing.T) {
	const n, size = 40, 1 << 20
	var msgs []*providerv1.UpdatesResponse
	for i := range n {
		u := upd(int64(i + 1))
		u.Payload = make([]byte, size)
		msgs = append(msgs, &providerv1.UpdatesResponse{Updates: []*providerv1.Update{u}})
	}
	prov := &scriptedUpdates{msgs: msgs, last: n}
	conn := serveScript(t, prov)
	m := pumpManager(t, cursorStore{}, 0)
	p := m.provs["x"]
	full := make(chan int64, n)
	m.pumpFull = func() { full <- p.pumpHeld.Load() }
	ing := &gatedIngester{open: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := m.stream(ctx, p, providerv1.NewProviderServiceClient(conn), ing)
		done <- err
	}()
	select {
	case held := <-full:
		if held > pumpBytes || held < pumpBytes-2*size {
			t.Errorf("the pump waited for room holding %d bytes, want about %d", held, pumpBytes)
		}
	case err := <-done:
		t.Fatalf("the stream ended (%v) without the pump waiting for room: it read all %d MiB ahead of the journal", err, n)
	case <-ctx.Done():
		t.Fatal("the pump never waited for room")
	}
	close(ing.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var all []int64
	for _, b := range ing.batches {
		all = append(all, b...)
	}
	if len(all) != n || all[0] != 1 || all[n-1] != n {
		t.Errorf("journalled %v, want 1..%d", all, n)
	}
	if h := p.pumpHeld.Load(); h != 0 {
		t.Errorf("%d bytes still counted as held after the stream", h)
	}
}

// panickingIngester panics at the first batch.
type panickingIngester struct{}

func (panickingIngester) Ingest(context.Context, string, []hub.Inbound, []byte) (int64, error) {
	panic("a batch the journal could not take")
}

// TestPumpContainsAPanic: a panic while a batch is journalled ends the
// stream with an error (it starts again after the pump's pause) instead
// of the supervisor.
func TestPumpContainsAPanic(t *testing.T) {
	prov := &scriptedUpdates{msgs: []*providerv1.UpdatesResponse{{Updates: upds(1)}}, last: 1}
	conn := serveScript(t, prov)
	m := pumpManager(t, cursorStore{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	progressed, err := m.streamContained(ctx, m.provs["x"], providerv1.NewProviderServiceClient(conn), panickingIngester{})
	if progressed || err == nil || !strings.Contains(err.Error(), "panic: a batch the journal could not take") {
		t.Errorf("stream = %v, %v; want the panic as its error", progressed, err)
	}
}
