package main

import (
	"bytes"
	"os"
	"testing"
)

func TestColorAllowed(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{name: "plain", want: true},
		{name: "NO_COLOR set", env: map[string]string{"NO_COLOR": "1"}},
		{name: "NO_COLOR empty is unset", env: map[string]string{"NO_COLOR": ""}, want: true},
		{name: "dumb terminal", env: map[string]string{"TERM": "dumb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := colorAllowed(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsTerminalNotForFilesAndBuffers(t *testing.T) {
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, out := range map[string]any{"file": f, "pipe": w, "buffer": &bytes.Buffer{}} {
		if isTerminal(out.(interface{ Write([]byte) (int, error) })) {
			t.Errorf("%s taken for a terminal", name)
		}
	}
	if a := newApp(f, f, func(string) string { return "" }); a.tty || a.color {
		t.Errorf("a file: tty %v colour %v", a.tty, a.color)
	}
}

// Colour on a real terminal (a pty), with and without NO_COLOR and
// TERM=dumb, is e2e's TestBusctlColourOnATerminalOnly (in the e2e module,
// which requires the pty library the product does not).
