//go:build soak

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// playgroundRoomHistory is how many messages a playground room holds
// (docs/playground.md: the last 2000).
const playgroundRoomHistory = 2000

// TestSoakCheckOfThePlayground is the soak's check of the playground's
// sends, with the real playground. A room holds its last 2,000 messages,
// fewer than a long soak writes into the follower's room (a 60-minute
// run, about 4,400): its history read at the end lacks the first sends.
// The check reads the room after each round instead: it finds each send
// once though the room no longer holds it, finds a send that never
// reached the room, and fails when the room dropped messages it had not
// read.
func TestSoakCheckOfThePlayground(t *testing.T) {
	b := newSoakBus(t)
	ctx, cancel := context.WithCancel(context.Background())
	f := &soakFollower{b: b, provider: "playground", key: "soak:playground", seen: map[string]int{}, unknown: map[int]bool{}}
	done := make(chan struct{})
	go func() { f.run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if fl, _ := f.current(); fl != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the follower never registered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	const sends = 3
	for range sends {
		f.send(ctx)
	}
	if len(f.unknown) > 0 {
		t.Fatalf("sends of unknown outcome with no fault: %v", f.unknown)
	}
	_, room := f.current()
	pg := &page{b: b}
	each, once := &roomTally{pg: pg}, &roomTally{pg: pg} // each: read every 100 messages; once: before and after
	for _, pt := range []*roomTally{each, once} {
		if err := pt.read(room); err != nil {
			t.Fatal(err)
		}
	}
	// A person writes enough that the room drops the sends.
	for i := range playgroundRoomHistory + 1 {
		text := fmt.Sprintf("fill %d", i)
		pg.say(ctx, room, text, text)
		if i%100 == 99 {
			if err := each.read(room); err != nil {
				t.Fatal(err)
			}
		}
	}
	end := map[string]int{} // the room's history now, read whole
	for before := int64(0); ; {
		page, ok := pg.history(room, before)
		if !ok {
			t.Fatalf("the history of room %s could not be read", room)
		}
		for _, m := range page.Messages {
			if m.From == "bot" {
				end[m.Text]++
			}
		}
		if !page.More {
			break
		}
		before = page.Messages[0].ID
	}
	if wrong := sentOnce("playground", sends, nil, end); len(wrong) != sends {
		t.Errorf("the room still holds some of the first sends (%d of %d not found): the fill did not make it drop them", len(wrong), sends)
	}

	got := b.platformTexts(t, "playground", room, each)
	if wrong := sentOnce("playground", sends, nil, got); len(wrong) > 0 {
		t.Errorf("read as it went, the room's sends: %s", strings.Join(wrong, "; "))
	}
	// A send the follower counts as answered that never reached the room.
	if wrong := sentOnce("playground", sends+1, nil, got); len(wrong) != 1 || !strings.Contains(wrong[0], "key playground-out-3") {
		t.Errorf("a dropped send (key playground-out-3) not found missing: %q", wrong)
	}
	// Of unknown outcome, it may be missing.
	if wrong := sentOnce("playground", sends+1, map[int]bool{sends: true}, got); len(wrong) > 0 {
		t.Errorf("a send of unknown outcome found wrong: %q", wrong)
	}
	// Twice is wrong, known or not.
	got["out playground 1"]++
	if wrong := sentOnce("playground", sends, map[int]bool{1: true}, got); len(wrong) != 1 || !strings.Contains(wrong[0], "key playground-out-1") {
		t.Errorf("a send at the platform twice not found: %q", wrong)
	}

	if err := once.read(room); err != nil {
		t.Fatal(err)
	}
	if len(once.gaps) != 1 {
		t.Errorf("a read after the room dropped messages never read: gaps %q, want one", once.gaps)
	}
	if len(each.gaps) != 0 {
		t.Errorf("read every 100 messages: gaps %q", each.gaps)
	}
}
