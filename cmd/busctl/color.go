package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// style is what a cell's colour means, not the colour itself.
type style int

const (
	stylePlain  style = iota
	styleGood         // running, serving, active
	styleWarn         // starting, backoff, suspended
	styleBad          // fatal, not serving, an error
	styleHeader       // a table's header line
	styleDim          // notes of lesser weight (stderr lines)
)

var sgr = map[style]string{
	styleGood:   "\x1b[32m",
	styleWarn:   "\x1b[33m",
	styleBad:    "\x1b[31m",
	styleHeader: "\x1b[1m",
	styleDim:    "\x1b[2m",
}

const sgrReset = "\x1b[0m"

// palette paints text when colour is on and leaves it alone otherwise.
type palette struct{ on bool }

func (p palette) paint(s string, st style) string {
	code, ok := sgr[st]
	if !p.on || !ok || s == "" {
		return s
	}
	return code + s + sgrReset
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// colorAllowed reports whether the environment lets busctl colour a
// terminal: not with NO_COLOR set to anything (https://no-color.org), nor
// on TERM=dumb.
func colorAllowed(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}
