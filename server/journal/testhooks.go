//go:build chatbus_testhooks

package journal

import (
	"os"
	"syscall"
)

// In test builds (-tags chatbus_testhooks), CHATBUS_TEST_JOURNAL_SYNC_FAULT
// names a file: while it exists, every batch's fdatasync fails with EIO
// after the batch was written, as on a disk that dropped the write. The
// end-to-end test of the reopen creates and removes it.
func init() {
	path := os.Getenv("CHATBUS_TEST_JOURNAL_SYNC_FAULT")
	if path == "" {
		return
	}
	syncFault = func() error {
		if _, err := os.Stat(path); err == nil {
			return syscall.EIO
		}
		return nil
	}
}
