package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/internal/durable"
	"github.com/chatbus/chatbus/paths"
)

// stateDirs are chatbus-mcp's own files under the supervisor's state dir:
// one 0700 directory, "mcp", holding a handoff file per profile key (0600),
// a delivered file per profile key (0600) and an inbox per profile key for
// the files people send (0700, files 0600). Names are a hash of the
// profile key, which may hold any character.
type stateDirs struct {
	root string // <state dir>/mcp
	id   string // hash of the profile key
}

func newStateDirs(supervisorState, profileKey string) stateDirs {
	sum := sha256.Sum256([]byte(profileKey))
	return stateDirs{root: filepath.Join(supervisorState, "mcp"), id: hex.EncodeToString(sum[:12])}
}

func (d stateDirs) handoffPath() string { return filepath.Join(d.root, "handoff-"+d.id+".json") }
func (d stateDirs) inbox() string       { return filepath.Join(d.root, "inbox", d.id) }
func (d stateDirs) noticePath() string  { return filepath.Join(d.root, "notice-"+d.id) }
func (d stateDirs) deliveredPath() string {
	return filepath.Join(d.root, "delivered-"+d.id)
}

// deliveredFile holds the highest seq of the profile key's thread whose
// notification a chatbus-mcp wrote to its client, so that a successor
// (after a kill -9, or a client that starts it again) starts after it:
// acks are coalesced, so the supervisor's ack point may be behind what
// was written, and without this file what was written and not yet acked
// would be delivered again. Seqs of a profile key's journal are never
// reused, and the file lives in the supervisor's state dir beside the
// journal, so it never names a seq the journal has not assigned. It is
// written after each notification, not synced: a killed process leaves
// its writes to the kernel; only a crash of the machine (which ends the
// client too) can lose the last ones.
type deliveredFile struct{ f *os.File }

// openDelivered opens (creating) the profile key's delivered file and
// returns the seq it holds (0: none, or unreadable).
func (d stateDirs) openDelivered() (*deliveredFile, uint64, error) {
	if err := paths.PrivateDir(d.root); err != nil {
		return nil, 0, fmt.Errorf("delivered file: %w", err)
	}
	f, err := os.OpenFile(d.deliveredPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("delivered file: %w", err)
	}
	var buf [deliveredWidth]byte
	n, _ := f.ReadAt(buf[:], 0)
	seq, _ := strconv.ParseUint(strings.TrimSpace(string(buf[:n])), 10, 64)
	return &deliveredFile{f: f}, seq, nil
}

// deliveredWidth is the file's fixed size: a seq in decimal, padded.
const deliveredWidth = 21

// store records seq as written to the client.
func (df *deliveredFile) store(seq uint64) error {
	var buf [deliveredWidth]byte
	b := strconv.AppendUint(buf[:0], seq, 10)
	for len(b) < deliveredWidth-1 {
		b = append(b, ' ')
	}
	b = append(b, '\n')
	_, err := df.f.WriteAt(b, 0)
	return err
}

func (df *deliveredFile) close() error { return df.f.Close() }

// handoffFile is what a chatbus-mcp leaves for the session's next one.
type handoffFile struct {
	ProfileKey string    `json:"profile_key"`
	Token      string    `json:"handoff_token"`
	Expires    time.Time `json:"expires_at"`
	// Binding names the thread, for people reading the file.
	Binding string `json:"binding,omitempty"`
}

// writeHandoff writes the file atomically (a 0600 temporary file renamed
// over it).
func (d stateDirs) writeHandoff(h handoffFile) error {
	if err := paths.PrivateDir(d.root); err != nil {
		return fmt.Errorf("handoff file: %w", err)
	}
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d.root, ".handoff-*")
	if err != nil {
		return fmt.Errorf("handoff file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("handoff file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return durable.Rename(tmp.Name(), d.handoffPath())
}

// takeHandoff reads and removes the handoff file of the profile key. No
// file, another key's, or one that expired is no handoff (ok false); the
// file is removed whatever it held, so a token is offered once.
func (d stateDirs) takeHandoff(profileKey string, now time.Time) (handoffFile, bool, error) {
	path := d.handoffPath()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return handoffFile{}, false, nil
	}
	if err != nil {
		return handoffFile{}, false, fmt.Errorf("handoff file: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return handoffFile{}, false, fmt.Errorf("handoff file: %w", err)
	}
	var h handoffFile
	if err := json.Unmarshal(b, &h); err != nil {
		return handoffFile{}, false, fmt.Errorf("handoff file %s: %w", path, err)
	}
	if h.ProfileKey != profileKey || h.Token == "" || !now.Before(h.Expires) {
		return h, false, nil
	}
	return h, true, nil
}

// noticed reports whether the thread was told already that the session
// has no way in, for this reason (the notice file holds the last reason
// told): a reload does not repeat it.
func (d stateDirs) noticed(why string) bool {
	b, err := os.ReadFile(d.noticePath())
	return err == nil && string(b) == why
}

// markNoticed records that the thread was told why.
func (d stateDirs) markNoticed(why string) error {
	if err := paths.PrivateDir(d.root); err != nil {
		return err
	}
	return os.WriteFile(d.noticePath(), []byte(why), 0o600)
}
