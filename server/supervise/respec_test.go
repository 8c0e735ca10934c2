package supervise

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestRespecThenRetire: Respec changes what the next start is made from
// (the running child keeps its own); Retire makes the next planned exit
// final: no successor, Run stops.
func TestRespecThenRetire(t *testing.T) {
	h := start(t, modeExitOnRequest, func(s *Spec) { s.Config = []byte(`{"v":1}`) })
	c1, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.rec.wait(h.ctx, t, "SERVING", countIs(EventHealth, 1))
	if err := h.s.Respec(Launch{Config: []byte(`[1]`)}); !errors.Is(err, ErrBadSpec) {
		t.Fatalf("Respec with a non-object config: %v, want ErrBadSpec", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.s.Respec(Launch{Path: exe, Config: []byte(`{"v":2}`)}); err != nil {
		t.Fatal(err)
	}
	if c, ok := h.s.Current(); !ok || c.Incarnation != c1.Incarnation {
		t.Fatal("Respec touched the running child")
	}
	if err := h.s.ExpectExit(c1.Incarnation); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(c1.Incarnation.PID, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.WaitExit(h.ctx, c1.Incarnation); err != nil {
		t.Fatal(err)
	}
	c2, err := h.s.WaitRunning(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.rec.wait(h.ctx, t, "the successor SERVING", countIs(EventHealth, 3))
	var configs []string
	for _, e := range logEntries(t, h.log) {
		if msg, _ := e["message"].(string); strings.HasPrefix(msg, "config: ") {
			configs = append(configs, msg)
		}
	}
	if len(configs) != 2 || !strings.HasSuffix(configs[0], `"v":1}`) || !strings.HasSuffix(configs[1], `"v":2}`) {
		t.Fatalf("the children were given %q; want v1, then v2", configs)
	}

	other := c1.Incarnation
	if err := h.s.Retire(other); !errors.Is(err, ErrNotCurrent) {
		t.Errorf("Retire(an exited child): %v, want ErrNotCurrent", err)
	}
	if err := h.s.Retire(c2.Incarnation); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(c2.Incarnation.PID, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.WaitExit(h.ctx, c2.Incarnation); err != nil {
		t.Fatal(err)
	}
	h.rec.wait(h.ctx, t, "stopped", countIs(EventStopped, 1))
	if _, err := h.s.WaitRunning(h.ctx); !errors.Is(err, ErrStopped) {
		t.Fatalf("WaitRunning after a retired child's exit: %v, want ErrStopped", err)
	}
	if st := h.s.Status(); st.State != StateStopped || st.LastError != "" {
		t.Errorf("Status = %+v", st)
	}
	if n := h.startCount(t); n != 2 {
		t.Errorf("%d starts, want 2 (no successor of the retired child)", n)
	}
	if err := h.stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
}
