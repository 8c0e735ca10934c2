package child_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

// recvIDs receives one message and returns the ids it carries.
func recvIDs(t *testing.T, s updatesClient) []int64 {
	t.Helper()
	m, err := s.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, u := range m.GetUpdates() {
		if u.GetReceivedAt() == nil {
			t.Fatalf("update %d without received_at", u.GetUpdateId())
		}
		ids = append(ids, u.GetUpdateId())
	}
	return ids
}

// recvN receives messages until they carried n updates, and returns
// their ids.
func recvN(t *testing.T, s updatesClient, n int) []int64 {
	t.Helper()
	var ids []int64
	for len(ids) < n {
		ids = append(ids, recvIDs(t, s)...)
	}
	return ids
}

func TestBatches(t *testing.T) {
	t.Run("one message per batch", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		res := deliverAsync(ctx, run.sink, updates(1, 2, 3))
		if got := recvIDs(t, s); !slices.Equal(got, []int64{1, 2, 3}) {
			t.Fatalf("first message carries %v, want [1 2 3]", got)
		}
		notYet(t, res, "Deliver before the ack")
		ack(t, s, 3)
		wantAcked(t, res, "Deliver", 3)
	})

	t.Run("a batch larger than a message allows is split, in order", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		ups := updates(1, 2, 3, 4)
		for _, u := range ups {
			u.Payload = bytes.Repeat([]byte("x"), 400<<10) // 4 × 400 KiB: more than a message takes
		}
		res := deliverAsync(ctx, run.sink, ups)
		var got []int64
		msgs := 0
		for len(got) < 4 {
			got = append(got, recvIDs(t, s)...)
			msgs++
		}
		if !slices.Equal(got, []int64{1, 2, 3, 4}) || msgs < 2 {
			t.Fatalf("received %v in %d messages, want [1 2 3 4] in at least 2", got, msgs)
		}
		ack(t, s, 4)
		wantAcked(t, res, "Deliver", 4)
	})
}

func TestPipeline(t *testing.T) {
	t.Run("two batches in flight, the third waits for the first ack", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		pl, ok := run.sink.(child.Pipeline)
		if !ok {
			t.Fatal("the SDK's Sink is not a Pipeline")
		}
		if child.PipelineDepth != 2 {
			t.Fatalf("PipelineDepth %d; this test is written for 2", child.PipelineDepth)
		}
		for _, b := range [][]int64{{1, 2}, {3}} {
			if a, err := pl.Send(ctx, updates(b...)); a != 0 || err != nil {
				t.Fatalf("Send(%v) = %d, %v; want 0, nil without any ack", b, a, err)
			}
			if got := recvIDs(t, s); !slices.Equal(got, b) {
				t.Fatalf("received %v, want %v", got, b)
			}
		}
		if got := h.Server.Occupancy().Inbound; got != 3 {
			t.Fatalf("inbound %d, want 3", got)
		}
		third := make(chan deliverResult, 1)
		go func() {
			a, err := pl.Send(ctx, updates(4))
			third <- deliverResult{a, err}
		}()
		notYet(t, third, "a third Send with two batches unacknowledged")
		ack(t, s, 1) // half of the first batch: still two batches open
		notYet(t, third, "a third Send after a partial ack of the first batch")
		ack(t, s, 2)
		wantAcked(t, third, "third Send", 2)
		if got := recvIDs(t, s); !slices.Equal(got, []int64{4}) {
			t.Fatalf("received %v, want [4]", got)
		}
		flushed := make(chan deliverResult, 1)
		go func() {
			a, err := pl.Flush(ctx)
			flushed <- deliverResult{a, err}
		}()
		ack(t, s, 3)
		notYet(t, flushed, "Flush before the last ack")
		ack(t, s, 4)
		wantAcked(t, flushed, "Flush", 4)
		if got := h.Server.Occupancy().Inbound; got != 0 {
			t.Fatalf("inbound %d after every ack, want 0", got)
		}
		// Deliver after Send keeps the ids increasing across both.
		redeliver(t, ctx, run.sink, 4)
	})

	t.Run("the stream ends with two batches in flight: the partial ack point, nothing counted", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run, cancelStream := p.openEndable(t, ctx, h, 0)
		pl := run.sink.(child.Pipeline)
		for _, b := range [][]int64{{1, 2}, {3, 4}} {
			if _, err := pl.Send(ctx, updates(b...)); err != nil {
				t.Fatal(err)
			}
			recvIDs(t, s)
		}
		ack(t, s, 2)
		testkit.Eventually(t, "inbound 2", func() bool { return h.Server.Occupancy().Inbound == 2 })
		cancelStream()
		if a, err := pl.Flush(ctx); a != 2 || !errors.Is(err, provider.ErrStreamEnded) {
			t.Fatalf("Flush = %d, %v; want 2, ErrStreamEnded", a, err)
		}
		if a, err := pl.Send(ctx, updates(5)); a != 2 || !errors.Is(err, provider.ErrStreamEnded) {
			t.Fatalf("Send on an ended stream = %d, %v; want 2, ErrStreamEnded", a, err)
		}
		testkit.Eventually(t, "inbound 0", func() bool { return h.Server.Occupancy().Inbound == 0 })
	})

	t.Run("a closed admission refuses Send", func(t *testing.T) {
		ctx := providertest.Context(t)
		p, h := startProbed(t)
		s, run := p.open(t, ctx, h, 0)
		pl := run.sink.(child.Pipeline)
		if _, err := pl.Send(ctx, updates(1)); err != nil {
			t.Fatal(err)
		}
		recvIDs(t, s)
		if _, err := h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "r1"), Lease: durationOf(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if a, err := pl.Send(ctx, updates(2)); a != 0 || !errors.Is(err, provider.ErrNotAdmitting) {
			t.Fatalf("Send while prepared = %d, %v; want 0, ErrNotAdmitting", a, err)
		}
		ack(t, s, 1)
		if a, err := pl.Flush(ctx); a != 1 || err != nil {
			t.Fatalf("Flush = %d, %v; want 1, nil", a, err)
		}
	})
}
