package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOneExitCodeTable: the exit codes busctl uses are the ones
// docs/busctl.md's table and busctl --help list, no more, no fewer.
func TestOneExitCodeTable(t *testing.T) {
	used := []int{exitOK, exitError, exitUsage, exitNotRunning, exitDenied, exitNotFound,
		exitOwnerUnavailable, exitRefused, exitExitTimeout, exitSuccessorRefused}
	slices.Sort(used)

	doc, err := os.ReadFile("../../docs/busctl.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Exit codes")
	if !ok {
		t.Fatal("docs/busctl.md has no Exit codes section")
	}
	var documented []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		documented = append(documented, n)
	}
	if !slices.Equal(documented, used) {
		t.Errorf("docs/busctl.md documents exit codes %v, busctl uses %v", documented, used)
	}

	var helped []int
	for _, m := range regexp.MustCompile(`(?m)^  (\d+)(?:-(\d+))?  `).FindAllStringSubmatch(rootLong, -1) {
		lo, _ := strconv.Atoi(m[1])
		hi := lo
		if m[2] != "" {
			hi, _ = strconv.Atoi(m[2])
		}
		for n := lo; n <= hi; n++ {
			helped = append(helped, n)
		}
	}
	if !slices.Equal(helped, used) {
		t.Errorf("busctl --help lists exit codes %v, busctl uses %v", helped, used)
	}
}
