package vfs

import "os"

// SetDataSync makes sync stand in for the system call of File.SyncData
// (dataSync) until the returned restore is called. sync receives the
// file and may call the real one, which it is given.
func SetDataSync(sync func(f *os.File, real func(*os.File) error) error) (restore func()) {
	real := dataSync
	dataSync = func(f *os.File) error { return sync(f, real) }
	return func() { dataSync = real }
}
