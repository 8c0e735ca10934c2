package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk meta page (go.etcd.io/bbolt/internal/common, format
// version 2). A page starts with a 16-byte header (id u64, flags u16,
// count u16, overflow u32); the meta follows in native byte order:
//
//	magic u32, version u32, pageSize u32, flags u32,
//	root {pgid u64, sequence u64}, freelist u64, pgid (high water mark) u64,
//	txid u64, checksum u64 (FNV-1a 64 of the 56 bytes before it)
const (
	boltMagic          = 0xED0CDAED
	boltVersion        = 2
	boltPageHeaderSize = 16
	boltMetaSize       = 64
	boltNoFreelist     = ^uint64(0)
)

type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64 // high water mark: pages [0, pgid) are in use
	txid     uint64
}

// parseMeta decodes and checks the meta page at the start of buf.
func parseMeta(buf []byte) (boltMeta, bool) {
	if len(buf) < boltPageHeaderSize+boltMetaSize {
		return boltMeta{}, false
	}
	m := buf[boltPageHeaderSize : boltPageHeaderSize+boltMetaSize]
	ne := binary.NativeEndian
	if ne.Uint32(m[0:]) != boltMagic || ne.Uint32(m[4:]) != boltVersion {
		return boltMeta{}, false
	}
	h := fnv.New64a()
	_, _ = h.Write(m[:56])
	if h.Sum64() != ne.Uint64(m[56:]) {
		return boltMeta{}, false
	}
	return boltMeta{
		pageSize: ne.Uint32(m[8:]),
		root:     ne.Uint64(m[16:]),
		freelist: ne.Uint64(m[32:]),
		pgid:     ne.Uint64(m[40:]),
		txid:     ne.Uint64(m[48:]),
	}, true
}

// validateFile checks, before bbolt maps it, that f is a regular file that
// is either empty (bbolt initialises it) or an intact bbolt file: a valid
// meta page, both meta pages present, and every page the newest valid meta
// refers to inside the file. bbolt trusts all of that; a truncated file
// would fault (SIGBUS) when mapped. It only reads f.
func validateFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("is a %s: %w", fileType(fi.Mode()), ErrUnusable)
	}
	size := fi.Size()
	if size == 0 {
		return nil
	}
	readAt := func(off int64) []byte {
		buf := make([]byte, 0x1000)
		n, err := f.ReadAt(buf, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil
		}
		return buf[:n]
	}

	// Find the page size as bbolt does: from meta 0, else from meta 1 at
	// each possible page size.
	pageSize := int64(0)
	if m, ok := parseMeta(readAt(0)); ok {
		pageSize = int64(m.pageSize)
	} else {
		for i := 0; i <= 14; i++ {
			pos := int64(1024) << i
			if pos >= size-1024 {
				break
			}
			if m, ok := parseMeta(readAt(pos)); ok {
				pageSize = int64(m.pageSize)
				break
			}
		}
	}
	if pageSize == 0 {
		return fmt.Errorf("%w: no valid bbolt meta page (bad magic or checksum; %d bytes)", ErrCorrupt, size)
	}
	if pageSize < 1024 || pageSize > 1<<24 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("%w: implausible page size %d", ErrCorrupt, pageSize)
	}
	if size < 2*pageSize {
		return fmt.Errorf("%w: truncated to %d bytes, shorter than its two %d-byte meta pages", ErrCorrupt, size, pageSize)
	}

	// bbolt uses the valid meta with the highest txid.
	var meta boltMeta
	found := false
	for _, off := range []int64{0, pageSize} {
		m, ok := parseMeta(readAt(off))
		if !ok || int64(m.pageSize) != pageSize {
			continue
		}
		if !found || m.txid > meta.txid {
			meta, found = m, true
		}
	}
	if !found {
		return fmt.Errorf("%w: no valid bbolt meta page of size %d", ErrCorrupt, pageSize)
	}
	if meta.pgid < 2 || meta.pgid > uint64(size/pageSize) {
		return fmt.Errorf("%w: truncated to %d bytes, its last transaction uses %d pages of %d bytes",
			ErrCorrupt, size, meta.pgid, pageSize)
	}
	if meta.root < 2 || meta.root >= meta.pgid || (meta.freelist != boltNoFreelist && (meta.freelist < 2 || meta.freelist >= meta.pgid)) {
		return fmt.Errorf("%w: meta page points outside the file (root %d, freelist %d, %d pages)",
			ErrCorrupt, meta.root, meta.freelist, meta.pgid)
	}
	if _, err := readPage(f, meta, meta.root, boltBranchPage|boltLeafPage); err != nil {
		return fmt.Errorf("%w: root page: %v", ErrCorrupt, err)
	}
	if meta.freelist != boltNoFreelist {
		if err := checkFreelist(f, meta); err != nil {
			return fmt.Errorf("%w: freelist page %d: %v", ErrCorrupt, meta.freelist, err)
		}
	}
	return nil
}

// Page flags.
const (
	boltBranchPage   = 0x01
	boltLeafPage     = 0x02
	boltFreelistPage = 0x10
)

// readPage reads page id with its overflow pages after checking that its
// header names it, has one of the flags in want, and stays below the high
// water mark.
func readPage(f *os.File, m boltMeta, id uint64, want uint16) ([]byte, error) {
	ps := int64(m.pageSize)
	hdr := make([]byte, boltPageHeaderSize)
	if _, err := f.ReadAt(hdr, int64(id)*ps); err != nil {
		return nil, err
	}
	ne := binary.NativeEndian
	gotID, flags, overflow := ne.Uint64(hdr), ne.Uint16(hdr[8:]), uint64(ne.Uint32(hdr[12:]))
	if gotID != id || flags&want == 0 || flags&^(boltBranchPage|boltLeafPage|boltFreelistPage|0x04) != 0 {
		return nil, fmt.Errorf("header says page %d with flags %#x", gotID, flags)
	}
	if id+overflow >= m.pgid {
		return nil, fmt.Errorf("%d overflow pages run past the last page %d", overflow, m.pgid-1)
	}
	buf := make([]byte, int64(overflow+1)*ps)
	if _, err := f.ReadAt(buf, int64(id)*ps); err != nil {
		return nil, err
	}
	return buf, nil
}

// checkFreelist checks what bbolt trusts when it loads the freelist at
// Open: the page header, the id count fitting the page, every id inside the
// file. bbolt would panic (or fault) on the first two and later write pages
// far beyond the file's end on the third.
func checkFreelist(f *os.File, m boltMeta) error {
	p, err := readPage(f, m, m.freelist, boltFreelistPage)
	if err != nil {
		return err
	}
	ne := binary.NativeEndian
	count, off := uint64(ne.Uint16(p[10:])), uint64(boltPageHeaderSize)
	if count == 0xFFFF { // the real count is the first element
		count, off = ne.Uint64(p[off:]), off+8
	}
	if count > (uint64(len(p))-off)/8 {
		return fmt.Errorf("%d ids do not fit its %d bytes", count, len(p))
	}
	for i := range count {
		if id := ne.Uint64(p[off+8*i:]); id < 2 || id >= m.pgid {
			return fmt.Errorf("free page id %d outside [2, %d)", id, m.pgid)
		}
	}
	return nil
}
