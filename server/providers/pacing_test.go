package providers

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/store"
)

// gatedPacing is the real state file with each pacing save held until
// the test lets it through, so that calls can be made while one is under
// way.
type gatedPacing struct {
	*store.Bolt
	mu    sync.Mutex
	saves [][]store.PaceWindow
	gate  chan struct{}
}

func (g *gatedPacing) SavePacing(provider string, ws []store.PaceWindow) <-chan error {
	g.mu.Lock()
	g.saves = append(g.saves, ws)
	g.mu.Unlock()
	out := make(chan error, 1)
	go func() {
		<-g.gate
		out <- <-g.Bolt.SavePacing(provider, ws)
	}()
	return out
}

func (g *gatedPacing) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.saves)
}

// waitSaves waits until n saves were started and the saver is idle.
func waitSaves(t *testing.T, p *provider, g *gatedPacing, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.savingMu.Lock()
		idle := !p.saving
		p.savingMu.Unlock()
		if g.count() == n && idle {
			return
		}
		if g.count() > n || time.Now().After(deadline) {
			t.Fatalf("%d pacing saves, want %d (saver idle: %v)", g.count(), n, idle)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPacingSavesCoalesce: every call made asks for the windows to be
// saved, but while a save is under way the calls made meanwhile are
// saved by one more, taken after them; and a provider with no limits
// writes its empty windows once, not once per call.
func TestPacingSavesCoalesce(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g := &gatedPacing{Bolt: st, gate: make(chan struct{})}
	sched, err := outbound.New(outbound.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{spec: Spec{Name: "fake"}, log: zerolog.Nop(), sched: sched, paceStore: g}

	t.Run("no limits", func(t *testing.T) {
		for range 100 {
			p.savePacing()
		}
		close(g.gate)
		waitSaves(t, p, g, 1)
		for range 100 {
			p.savePacing()
		}
		waitSaves(t, p, g, 1)
	})

	t.Run("limits", func(t *testing.T) {
		g.gate = make(chan struct{})
		if err := sched.SetLimits([]outbound.Limit{{Name: "bot", Scope: outbound.ScopeBot, Count: 100, Per: time.Hour}}); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		sched.Restore([]outbound.WindowState{{Limit: "bot", Times: []time.Time{now}}})
		p.savePacing() // the first call: a save starts and is held
		later := []time.Time{now, now.Add(time.Millisecond)}
		sched.Restore([]outbound.WindowState{{Limit: "bot", Times: later[1:]}})
		for range 100 {
			p.savePacing() // made while it is held
		}
		close(g.gate)
		waitSaves(t, p, g, 3)
		last := g.saves[2]
		if len(last) != 1 || len(last[0].Times) != 2 {
			t.Fatalf("the last save wrote %+v, want the bot window with both calls", last)
		}
		saved, err := st.Pacing("fake")
		if err != nil {
			t.Fatal(err)
		}
		if len(saved) != 1 || len(saved[0].Times) != 2 {
			t.Fatalf("the state file holds %+v, want the bot window with both calls", saved)
		}
	})
}
