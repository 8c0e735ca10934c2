//go:build soak && !linux

package e2e

import "errors"

// limitFileSize is Linux's prlimit(2) only: elsewhere the soak injects no
// full disk.
func limitFileSize(int, uint64) error { return errors.ErrUnsupported }

const noFileSizeLimit = ^uint64(0)
