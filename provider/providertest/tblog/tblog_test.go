package tblog

import (
	"net/http"
	"slices"
	"sync"
	"testing"
)

// TestCloseOrder: Close ends a handler waiting on Done, runs the
// stand-in's stop after Done is closed, waits for WG, and is idempotent.
func TestCloseOrder(t *testing.T) {
	var mu sync.Mutex
	var steps []string
	step := func(s string) { mu.Lock(); steps = append(steps, s); mu.Unlock() }
	waiting := make(chan struct{})
	var s *Server
	s = Start(t, "test: ", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(waiting)
		<-s.Done // not the request's context: only Done ends it
		step("handler")
	}), nil, func() {
		select {
		case <-s.Done:
			step("stop")
		default:
			step("stop before Done")
		}
	})
	s.WG.Go(func() { <-s.Done; step("goroutine") })
	go func() {
		if resp, err := http.Get(s.URL); err == nil { // ends when the server closes
			resp.Body.Close()
		}
	}()
	<-waiting
	s.Close()
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(steps, "stop") || !slices.Contains(steps, "handler") || !slices.Contains(steps, "goroutine") || len(steps) != 3 {
		t.Errorf("Close ran %q, want stop after Done, the handler and the goroutine ended, once each", steps)
	}
}
