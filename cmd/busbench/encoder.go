//go:build linux

package main

// encoder: what the hand encoding of a Subscribe response buys. A journal
// record is the update in the wire form a stream sends (server/store's
// codec version 3), so a stream frames the stored bytes with the update's
// seq and platform and sends them (server.subscribeResponse, with
// store.AppendWireUpdate) instead of decoding and re-encoding each update.
// The generated code's way to send the same message is to decode the
// stored bytes into a chatbus.v1.Update, set seq and platform, and marshal
// the response. Both run here, in rounds that alternate, over the same 256
// Telegram-shaped updates read from a real journal; the figure is the
// process's CPU time (utime + stime: busbench runs nothing else meanwhile,
// and the collector's work is counted) per update sent.

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/chatbus/chatbus/bench"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/store"
)

// encoderBatch is the updates per Subscribe response: the Go client's
// max_batch.
const encoderBatch = 256

func (b *bencher) encoderPhase(ctx context.Context) error {
	rounds, perRound := pick(b.opts.Quick, 3, 7), pick(b.opts.Quick, 200, 1000)
	b.logf("encoder: %d alternating rounds of %d Subscribe responses of %d updates each, the journal's bytes framed (hand) and decoded + re-encoded (generated)",
		rounds, perRound, encoderBatch)
	st, err := store.Open(filepath.Join(b.stateRoot, "encoder.db"), store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	ups := make([]store.Update, encoderBatch)
	for i := range ups {
		id := int64(900000 + i)
		text, payload := bench.TelegramUpdate(nil, id, benchChat, 1001, time.Now())
		ups[i] = store.Update{PlatformUpdateID: id, Kind: store.UpdateMessage, Chat: strconv.FormatInt(benchChat, 10), Thread: "1001",
			FromUserID: bench.UserID, Sender: strconv.FormatInt(bench.UserID, 10), Refs: []store.Ref{{Kind: store.RefMessage, ID: strconv.FormatInt(id, 10)}},
			Text: text, Payload: payload}
	}
	if _, err := st.Append(ctx, benchProvider, ups, nil); err != nil {
		return err
	}
	enc, err := store.ReadEncoded(st, "", 0, encoderBatch)
	if err != nil || len(enc) != encoderBatch {
		return fmt.Errorf("read %d of %d: %v", len(enc), encoderBatch, err)
	}
	hand, gen := encodeHand(enc), encodeGenerated(enc)
	if hand == nil || gen == nil {
		return fmt.Errorf("encoding failed")
	}
	var a, g chatbusv1.SubscribeResponse
	if proto.Unmarshal(hand, &a) != nil || proto.Unmarshal(gen, &g) != nil || !proto.Equal(&a, &g) {
		return fmt.Errorf("the two encodings of one response differ")
	}
	var hs, gs []time.Duration
	var ha, ga float64 // allocations per update, over every round
	var sink int
	for range rounds {
		d, a := cpuPer(perRound, func() { sink += len(encodeHand(enc)) })
		hs, ha = append(hs, d/encoderBatch), ha+a/encoderBatch/float64(rounds)
		d, a = cpuPer(perRound, func() { sink += len(encodeGenerated(enc)) })
		gs, ga = append(gs, d/encoderBatch), ga+a/encoderBatch/float64(rounds)
	}
	h, gsum := bench.Summarize(hs), bench.Summarize(gs)
	b.results.Details["encoder"] = map[string]any{"hand_ns_per_update": hs, "generated_ns_per_update": gs,
		"hand_allocs_per_update": ha, "generated_allocs_per_update": ga,
		"batch": encoderBatch, "responses_per_round": perRound, "bytes_per_response": len(hand)}
	note := fmt.Sprintf("process CPU per update of a %d-update response (%d bytes), median of %d alternating rounds of %d responses; allocations per update %.2f (hand) against %.1f (generated); the two decode to the same message (checked)",
		encoderBatch, len(hand), rounds, perRound, ha, ga)
	if rows := b.results.Scaling; len(rows) > 0 && rows[0].CPUPerUpdate > 0 {
		note += fmt.Sprintf("; the generated path would add %s per forwarded update, %.0f %% of the supervisor's CPU per update at %d follower%s in this run (%s)",
			(gsum.P50 - h.P50).Round(10*time.Nanosecond), 100*float64(gsum.P50-h.P50)/float64(rows[0].CPUPerUpdate), rows[0].Followers,
			pick(rows[0].Followers == 1, "", "s"), rows[0].CPUPerUpdate.Round(100*time.Nanosecond))
	}
	b.addFigure(figure{ID: "subscribe_encode", Name: "Subscribe response encoding, CPU per update: the journal's bytes framed (hand)", Unit: unitDuration,
		Chatbus: fp(float64(h.P50)), Baseline: fp(float64(gsum.P50)), BaselineName: "decoded and re-encoded by the generated code",
		Samples: rounds * perRound * encoderBatch, BaselineSamples: rounds * perRound * encoderBatch, Note: note},
		target{RatioMax: 0.5})
	if sink == 0 {
		return fmt.Errorf("nothing encoded")
	}
	return nil
}

// fieldUpdates is chatbus.v1.SubscribeResponse's updates field.
var fieldUpdates = (&chatbusv1.SubscribeResponse{}).ProtoReflect().Descriptor().Fields().ByName("updates").Number()

// encodeHand is a batched Subscribe response as the supervisor's stream
// builds it: each stored update framed with its seq and platform.
func encodeHand(enc []store.Encoded) []byte {
	n := 0
	for i := range enc {
		n += store.WireUpdateSize(fieldUpdates, &enc[i], "telegram")
	}
	buf := make([]byte, 0, n)
	for i := range enc {
		buf = store.AppendWireUpdate(buf, fieldUpdates, &enc[i], "telegram")
	}
	return buf
}

// encodeGenerated is the same response by the generated code: each stored
// update decoded, its seq and platform set, the response marshalled.
func encodeGenerated(enc []store.Encoded) []byte {
	msg := &chatbusv1.SubscribeResponse{Updates: make([]*chatbusv1.Update, len(enc))}
	for i := range enc {
		u := new(chatbusv1.Update)
		if err := proto.Unmarshal(enc[i].Wire, u); err != nil {
			return nil
		}
		u.Seq, u.Platform = enc[i].Seq, "telegram"
		msg.Updates[i] = u
	}
	out, err := proto.Marshal(msg)
	if err != nil {
		return nil
	}
	return out
}

// cpuPer runs fn n times and returns the process's CPU time and the
// heap allocations per run.
func cpuPer(n int, fn func()) (time.Duration, float64) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := processCPU()
	for range n {
		fn()
	}
	c1 := processCPU()
	runtime.ReadMemStats(&m1)
	return (c1 - c0) / time.Duration(n), float64(m1.Mallocs-m0.Mallocs) / float64(n)
}

// processCPU is the process's user + system time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
