package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// table is a listing as busctl prints it: aligned columns, some only with
// -o wide, a line under a row for what does not fit in a column (an
// error, a provider's stderr). Widths are measured on the text alone, so
// colour never shifts a column (text/tabwriter would count the escape
// sequences).
type table struct {
	cols []column
	rows []*row
	// noHeader: a key/value listing (status) has no header line.
	noHeader bool
	// empty is printed instead of rows when there are none.
	empty string
}

// column is a table column; a wide one shows only with -o wide.
type column struct {
	name string
	wide bool
}

type row struct {
	cells []cell
	notes []cell
}

// cell is one value and how it is coloured.
type cell struct {
	text  string
	style style
}

func newTable(cols ...column) *table { return &table{cols: cols} }

// col is a column always shown; wideCol one shown only with -o wide.
func col(name string) column     { return column{name: name} }
func wideCol(name string) column { return column{name: name, wide: true} }

// txt is an uncoloured cell; paint a coloured one.
func txt(s string) cell             { return cell{text: s} }
func paint(s string, st style) cell { return cell{text: s, style: st} }
func (t *table) add(cells ...cell) *row {
	r := &row{cells: cells}
	t.rows = append(t.rows, r)
	return r
}

// note adds a line printed under the row, indented.
func (r *row) note(c cell) { r.notes = append(r.notes, c) }

// write prints the table; wide shows the wide columns.
func (t *table) write(w io.Writer, wide bool, p palette) {
	var keep []int
	for i, c := range t.cols {
		if wide || !c.wide {
			keep = append(keep, i)
		}
	}
	lines := make([][]cell, 0, len(t.rows)+1)
	if !t.noHeader {
		h := make([]cell, len(t.cols))
		for i, c := range t.cols {
			h[i] = paint(c.name, styleHeader)
		}
		lines = append(lines, h)
	}
	for _, r := range t.rows {
		lines = append(lines, r.cells)
	}
	width := make([]int, len(t.cols))
	for _, l := range lines {
		for _, i := range keep {
			if i < len(l) {
				width[i] = max(width[i], utf8.RuneCountInString(l[i].text))
			}
		}
	}
	var b strings.Builder
	emit := func(l []cell) {
		for k, i := range keep {
			var c cell
			if i < len(l) {
				c = l[i]
			}
			b.WriteString(p.paint(c.text, c.style))
			if k < len(keep)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(c.text)+2))
			}
		}
		b.WriteString("\n")
	}
	if !t.noHeader {
		emit(lines[0])
		lines = lines[1:]
	}
	for n, l := range lines {
		emit(l)
		for _, c := range t.rows[n].notes {
			b.WriteString("    " + p.paint(c.text, c.style) + "\n")
		}
	}
	if len(t.rows) == 0 && t.empty != "" {
		b.WriteString(t.empty + "\n")
	}
	io.WriteString(w, b.String())
}
