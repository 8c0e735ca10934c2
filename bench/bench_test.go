package bench

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func TestSummarize(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		var d []time.Duration
		for _, x := range n {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // reversed: Summarize sorts
	}
	tests := []struct {
		name          string
		in            []time.Duration
		p50, p99, max time.Duration
		n             int
	}{
		{name: "empty", in: nil},
		{name: "one", in: ms(7), p50: 7 * time.Millisecond, p99: 7 * time.Millisecond, max: 7 * time.Millisecond, n: 1},
		{name: "nearest rank", in: ms(hundred...), p50: 50 * time.Millisecond, p99: 99 * time.Millisecond, max: 100 * time.Millisecond, n: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.in)
			if s.N != tt.n || s.P50 != tt.p50 || s.P99 != tt.p99 || s.Max != tt.max {
				t.Errorf("Summarize = %+v; want n %d p50 %s p99 %s max %s", s, tt.n, tt.p50, tt.p99, tt.max)
			}
		})
	}
}

func TestTelegramUpdate(t *testing.T) {
	sent := time.Unix(1_700_000_000, 123_456_789)
	text, payload := TelegramUpdate(nil, 42, -1001, 7, sent)
	var u struct {
		UpdateID int64 `json:"update_id"`
		Message  struct {
			MessageID int64  `json:"message_id"`
			Thread    int64  `json:"message_thread_id"`
			Text      string `json:"text"`
			Chat      struct {
				ID int64 `json:"id"`
			} `json:"chat"`
			From struct {
				ID int64 `json:"id"`
			} `json:"from"`
		} `json:"message"`
	}
	if err := json.Unmarshal(payload, &u); err != nil {
		t.Fatalf("payload is not JSON: %v\n%s", err, payload)
	}
	if u.UpdateID != 42 || u.Message.MessageID != 42 || u.Message.Thread != 7 || u.Message.Chat.ID != -1001 ||
		u.Message.From.ID != UserID || u.Message.Text != text {
		t.Errorf("payload %s", payload)
	}
	got, ok := SentAt(text)
	if !ok || !got.Equal(sent) {
		t.Errorf("SentAt(%q) = %v, %v; want %v", text, got, ok, sent)
	}
	for _, bad := range []string{"", "hello", "bench ", "bench x"} {
		if _, ok := SentAt(bad); ok {
			t.Errorf("SentAt(%q) ok", bad)
		}
	}
}

// TestBaseline runs the bare server on a real socket: health, Push at a
// rate and as fast as it goes, Hold.
func TestBaseline(t *testing.T) {
	dir, err := os.MkdirTemp("", "cbb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "b.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	gs := NewBaselineServer()
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	cc, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	h, err := grpc_health_v1.NewHealthClient(cc).Check(ctx, &grpc_health_v1.HealthCheckRequest{})
	if err != nil || h.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", h, err)
	}
	tests := []struct {
		name string
		req  PushRequest
	}{
		{name: "paced", req: PushRequest{Count: 5, Interval: 2 * time.Millisecond}},
		{name: "saturated", req: PushRequest{Count: 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n uint64
			err := Push(ctx, cc, tt.req, func(u *chatbusv1.Update, at time.Time) error {
				n++
				if u.GetSeq() != n {
					t.Fatalf("seq %d, want %d", u.GetSeq(), n)
				}
				if sent, ok := SentAt(u.GetText()); !ok || at.Before(sent) {
					t.Fatalf("text %q at %v", u.GetText(), at)
				}
				return nil
			})
			if err != nil || n != uint64(tt.req.Count) {
				t.Fatalf("Push: %d updates, %v", n, err)
			}
		})
	}
	hctx, hcancel := context.WithCancel(ctx)
	if err := Hold(hctx, cc); err != nil {
		t.Fatalf("Hold: %v", err)
	}
	hcancel()
}
