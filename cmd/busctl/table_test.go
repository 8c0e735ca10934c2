package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func sampleTable() *table {
	t := newTable(col("NAME"), col("STATE"), wideCol("EXTRA"), col("LAST"))
	t.add(txt("telegram"), paint("RUNNING", styleGood), txt("x"), txt("-"))
	r := t.add(txt("sl·ck"), paint("FATAL", styleBad), txt("a much longer cell"), txt("boom"))
	r.note(paint("not serving: token_revoked", styleBad))
	return t
}

// TestTableAlignsColouredCells: colour never shifts a column; wide
// columns show only with -o wide; notes go under their row.
func TestTableAlignsColouredCells(t *testing.T) {
	tests := []struct {
		name      string
		wide, on  bool
		wantCols  []string
		wantColor bool
	}{
		{name: "plain", wantCols: []string{"NAME", "STATE", "LAST"}},
		{name: "coloured", on: true, wantCols: []string{"NAME", "STATE", "LAST"}, wantColor: true},
		{name: "wide coloured", wide: true, on: true, wantCols: []string{"NAME", "STATE", "EXTRA", "LAST"}, wantColor: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			sampleTable().write(&buf, tt.wide, palette{on: tt.on})
			out := buf.String()
			if got := ansi.MatchString(out); got != tt.wantColor {
				t.Fatalf("escape sequences %v, want %v:\n%q", got, tt.wantColor, out)
			}
			lines := strings.Split(strings.TrimSuffix(ansi.ReplaceAllString(out, ""), "\n"), "\n")
			if len(lines) != 4 {
				t.Fatalf("%d lines, want header, 2 rows, 1 note:\n%s", len(lines), out)
			}
			if got := strings.Fields(lines[0]); strings.Join(got, " ") != strings.Join(tt.wantCols, " ") {
				t.Errorf("header %q, want %q", got, tt.wantCols)
			}
			// Every column starts at the same rune offset on every line.
			for _, c := range tt.wantCols[1:] {
				at := runeIndex(lines[0], c)
				for _, l := range []string{lines[1], lines[2]} {
					if at > utf8.RuneCountInString(l) || runeAt(l, at-1) != ' ' || runeAt(l, at) == ' ' {
						t.Errorf("column %s (at %d) not aligned in %q", c, at, l)
					}
				}
			}
			if lines[3] != "    not serving: token_revoked" {
				t.Errorf("note line %q", lines[3])
			}
		})
	}
}

func runeIndex(s, sub string) int { return utf8.RuneCountInString(s[:strings.Index(s, sub)]) }

func runeAt(s string, i int) rune { return []rune(s)[i] }

func TestTableEmptyAndHeaderless(t *testing.T) {
	var buf bytes.Buffer
	tb := newTable(col("A"), col("B"))
	tb.empty = "(none)"
	tb.write(&buf, false, palette{})
	if got := buf.String(); got != "A  B\n(none)\n" {
		t.Errorf("empty table %q", got)
	}
	buf.Reset()
	kv := newTable(col("K"), col("V"))
	kv.noHeader = true
	kv.add(txt("socket"), txt("/s"))
	kv.add(txt("followers"), txt("2"))
	kv.write(&buf, false, palette{on: true})
	if got := buf.String(); got != "socket     /s\nfollowers  2\n" {
		t.Errorf("key/value table %q", got)
	}
}
