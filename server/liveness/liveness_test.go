package liveness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCheck(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	tests := []struct {
		name   string
		probes map[string]Probe
		want   []string // failing names
	}{
		{"none", nil, nil},
		{"all answer", map[string]Probe{"a": func(context.Context) error { return nil }, "b": func(context.Context) error { return nil }}, nil},
		{"one errs", map[string]Probe{"a": func(context.Context) error { return nil }, "b": func(context.Context) error { return errors.New("no") }}, []string{"b"}},
		{"one ignores its deadline", map[string]Probe{"a": func(context.Context) error { <-stuck; return nil }, "b": func(context.Context) error { return nil }}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			for n, p := range tt.probes {
				r.Register(n, p)
			}
			got := r.Check(context.Background(), 50*time.Millisecond)
			var names []string
			for _, f := range got {
				names = append(names, f.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("failures %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRegisterReplaceAndUnregister(t *testing.T) {
	r := New()
	un1 := r.Register("x", func(context.Context) error { return errors.New("old") })
	un2 := r.Register("x", func(context.Context) error { return nil })
	un1() // the replaced registration's unregister does nothing
	if got := r.Check(context.Background(), time.Second); len(got) != 0 || len(r.Names()) != 1 {
		t.Fatalf("after replace: %v %v", got, r.Names())
	}
	un2()
	if len(r.Names()) != 0 {
		t.Fatalf("after unregister: %v", r.Names())
	}
}

func TestLoop(t *testing.T) {
	l := NewLoop()
	stop := make(chan struct{})
	block := make(chan struct{})
	done := make(chan struct{})
	go func() { // a select loop that can be made to stall in a step
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-l.C():
			case <-block:
				<-block // stuck in a step until released
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if err := l.Probe(ctx); err != nil {
		t.Fatalf("idle loop: %v", err)
	}
	cancel()
	block <- struct{}{}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	if err := l.Probe(ctx); !errors.Is(err, ErrStalled) {
		t.Fatalf("stalled loop: %v", err)
	}
	cancel()
	block <- struct{}{}
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	if err := l.Probe(ctx); err != nil {
		t.Fatalf("released loop: %v", err)
	}
	cancel()
	close(stop)
	<-done
	var none *Loop
	if none.C() != nil {
		t.Fatal("nil Loop has a channel")
	}
}

func TestStep(t *testing.T) {
	var s Step
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Probe(ctx); err != nil {
		t.Fatalf("idle: %v", err)
	}
	s.Begin("journal write")
	err := s.Probe(ctx)
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "in journal write for") {
		t.Fatalf("stuck step: %v", err)
	}
	// A step that ends while the probe waits answers it.
	s.Begin("journal write")
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	res := make(chan error, 1)
	go func() { res <- s.Probe(ctx2) }()
	s.End()
	if err := <-res; err != nil {
		t.Fatalf("step ended during the probe: %v", err)
	}
	var none *Step
	none.Begin("x")
	none.End()
}
