// Package doccheck holds the test that keeps the repository's Markdown
// true to itself: every relative link in a tracked *.md file names a file
// or directory the repository tracks, and every #anchor names a heading of
// the page it points into, slugged as GitHub slugs headings. The code lives
// in the test files; this package has no API.
package doccheck
