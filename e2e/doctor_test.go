package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestDoctorRestartUnderLoad: updates keep arriving and followers keep
// sending while the provider is restarted: 0 lost, 0 duplicated, 0 sent
// twice, outcome restarted.
func TestDoctorRestartUnderLoad(t *testing.T) {
	// Unpaced: 60 calls in one chat would take three minutes within
	// Telegram's limits, and the load is what the restart is tested under.
	b := startTelegramBus(t, "    limits: {bot: \"off\", chat: \"off\", group: \"off\"}\n")
	const nFollowers, perFollower, callsPer = 3, 60, 20
	fls := make([]*follower, nFollowers)
	for i := range fls {
		fls[i] = b.follow(t, fmt.Sprintf("manual:%d", i), fmt.Sprintf("/w/p%d", i))
	}
	old := b.provider(t)

	var wg sync.WaitGroup
	var repeated atomic.Int32 // calls that timed out and were repeated with their key
	want := make([][]string, nFollowers)
	for i, fl := range fls {
		for j := range perFollower {
			want[i] = append(want[i], fmt.Sprintf("in-%d-%d", i, j))
		}
		wg.Go(func() { // a person writing into each thread
			for _, text := range want[i] {
				b.tg.PushMessage(forumChat, int(fl.thread()), allowedUser, text)
				time.Sleep(15 * time.Millisecond)
			}
		})
		wg.Go(func() { // the follower answering
			for j := range callsPer {
				text := fmt.Sprintf("out-%d-%d", i, j)
				// A short deadline, so that calls made during the restart
				// time out; each is repeated with its key, as
				// docs/guarantees.md says, until it answers.
				deadline := time.Now().Add(40 * time.Second)
				for attempt := 0; ; attempt++ {
					ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
					_, err := fl.f.Call(ctx, "sendMessage", fmt.Appendf(nil, `{"text":%q}`, text), text)
					cancel()
					if err == nil {
						if attempt > 0 {
							repeated.Add(1)
						}
						break
					}
					if status.Code(err) != codes.DeadlineExceeded || time.Now().After(deadline) {
						t.Errorf("call %s (attempt %d): %v", text, attempt, err)
						break
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	out, errOut, code := b.busctl("doctor", "restart", "telegram", "--drain", "10s", "--deadline", "40s")
	if code != 0 || !strings.Contains(out, "outcome: restarted") {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("doctor restart under load:\n%s", out)
	wg.Wait()

	for i, fl := range fls {
		fl.waitTexts(t, want[i]...) // exactly these, once each, in order
		sent := map[string]int{}
		for _, m := range b.tg.Sent(forumChat, int(fl.thread())) {
			sent[m.Text]++
		}
		for j := range callsPer {
			if n := sent[fmt.Sprintf("out-%d-%d", i, j)]; n != 1 {
				t.Errorf("out-%d-%d sent %d times", i, j, n)
			}
		}
		if len(sent) != callsPer {
			t.Errorf("thread %d got %d distinct messages, want %d", i, len(sent), callsPer)
		}
	}
	now := b.provider(t)
	if now.GetPid() == old.GetPid() || now.GetState() != chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
		t.Errorf("provider after restart: %v (was pid %d)", now, old.GetPid())
	}
	t.Logf("%d call(s) timed out during the restart and were repeated with their key", repeated.Load())
}

func TestDoctorFence(t *testing.T) {
	b := startTelegramBus(t, "")
	b.follow(t, "manual:1", "/w/one") // attached: the owner is occupied

	out, errOut, code := b.busctl("doctor", "prepare", "telegram", "--lease", "30s")
	if code != 0 {
		t.Fatalf("prepare: %d %s", code, errOut)
	}
	id := regexp.MustCompile(`request (busctl-[0-9a-f]+)`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("prepare printed no request id:\n%s", out)
	}
	contains(t, "prepare", out, "admitting false")

	// Commit is refused while a follower is attached, naming it.
	_, errOut, code = b.busctl("doctor", "commit", "telegram", "--request-id", id[1])
	if code == 0 || !strings.Contains(errOut, "occupied") || !strings.Contains(errOut, "manual:1-1") {
		t.Errorf("commit while occupied: exit %d: %s", code, errOut)
	}
	// Another request id cannot cancel it; the right one can.
	if _, _, code := b.busctl("doctor", "cancel", "telegram", "--request-id", "busctl-other"); code == 0 {
		t.Error("cancel with another request id accepted")
	}
	out, _, code = b.busctl("doctor", "cancel", "telegram", "--request-id", id[1])
	if code != 0 || !strings.Contains(out, "admitting true") {
		t.Errorf("cancel: %d %s", code, out)
	}

	// A lease that expires reopens admission by itself.
	if _, errOut, code := b.busctl("doctor", "prepare", "telegram", "--lease", "500ms"); code != 0 {
		t.Fatalf("prepare: %s", errOut)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _, _ = b.busctl("doctor", "status", "telegram")
		if strings.Contains(out, "idle") && strings.Contains(out, "true") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lease never expired:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hangingCall starts a sendMessage that the stand-in holds for d, so the
// owner has an outbound delivery in flight.
func hangingCall(t *testing.T, b *tgBus, fl *follower, d time.Duration) chan error {
	b.tg.Fail("sendMessage", tgtest.Fault{Delay: d})
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
		defer cancel()
		_, err := fl.f.Call(ctx, "sendMessage", []byte(`{"text":"slow"}`), "")
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for b.tg.Calls("sendMessage") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the call never reached the platform")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return done
}

func TestDoctorConcurrentRestartsAndDrain(t *testing.T) {
	b := startTelegramBus(t, "")
	fl := b.follow(t, "manual:1", "/w/one")
	done := hangingCall(t, b, fl, 3*time.Second)

	first := make(chan string, 1)
	go func() {
		out, _, code := b.busctl("doctor", "restart", "telegram", "--drain", "20s", "--deadline", "40s")
		first <- fmt.Sprintf("exit %d\n%s", code, out)
	}()
	time.Sleep(700 * time.Millisecond) // the first is draining
	_, errOut, code := b.busctl("doctor", "restart", "telegram")
	if code == 0 || !strings.Contains(errOut, "already under way") {
		t.Errorf("second restart: exit %d: %s", code, errOut)
	}
	res := <-first
	if !strings.Contains(res, "exit 0") || !strings.Contains(res, "outcome: restarted") || !strings.Contains(res, "outbound delivery") {
		t.Errorf("first restart (should have waited for the outbound delivery):\n%s", res)
	}
	if err := <-done; err != nil {
		t.Errorf("the in-flight call: %v", err)
	}
}

func TestDoctorOldOwnerExitTimeout(t *testing.T) {
	b := startTelegramBus(t, "")
	fl := b.follow(t, "manual:1", "/w/one")
	old := b.provider(t)
	done := hangingCall(t, b, fl, 6*time.Second)
	// The drain is bounded: after 1s it commits anyway, naming the
	// blocker; the owner then cannot exit before the deadline.
	out, _, code := b.busctl("doctor", "restart", "telegram", "--drain", "1s", "--deadline", "3s")
	if code != 12 || !strings.Contains(out, "old_owner_exit_timeout") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	contains(t, "restart", out, "drain bound reached")
	contains(t, "restart", out, "blocked by: 1 outbound delivery(ies) in flight")
	// Nothing was killed: the old owner is alive and finishes its call.
	if err := syscall.Kill(int(old.GetPid()), 0); err != nil {
		t.Errorf("old owner gone: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("the in-flight call: %v", err)
	}
	// Once settled it exits by itself and supervision starts a successor.
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetPid() != old.GetPid() && pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING
	}, "replaced after settling")
}

// swapBinary replaces the provider binary on disk (an upgrade) with a
// script; rename, because the running one is busy.
func swapBinary(t *testing.T, path, script string) {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func startCopiedBinary(t *testing.T) (*tgBus, string) {
	bin := filepath.Join(t.TempDir(), "provider-telegram")
	data, err := os.ReadFile(filepath.Join(binDir, "provider-telegram"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return startTelegramBus(t, "    binary: "+bin+"\n"), bin
}

func TestDoctorSuccessorRefused(t *testing.T) {
	tests := []struct {
		name, script, reason string
		code                 int
	}{
		{name: "start refused", script: "#!/bin/sh\necho broken upgrade >&2\nexit 1\n", reason: "successor_refused{start_refused}", code: 13},
		{name: "publication timeout", script: "#!/bin/sh\necho \"1|unix|$CHATBUS_PROVIDER_SOCKET|grpc\"\nexec sleep 600\n", reason: "successor_refused{publication_timeout}", code: 13},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, bin := startCopiedBinary(t)
			swapBinary(t, bin, tt.script)
			out, _, code := b.busctl("doctor", "restart", "telegram", "--deadline", "4s")
			if code != tt.code || !strings.Contains(out, tt.reason) {
				t.Errorf("exit %d, want %d with %s:\n%s", code, tt.code, tt.reason, out)
			}
		})
	}
}
