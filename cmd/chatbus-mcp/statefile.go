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
	"time"

	"github.com/chatbus/chatbus/paths"
)

// stateDirs are chatbus-mcp's own files under the supervisor's state dir:
// one 0700 directory, "mcp", holding a handoff file per profile key (0600)
// and an inbox per profile key for the files people send (0700, files
// 0600). Names are a hash of the profile key, which may hold any
// character.
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
	return os.Rename(tmp.Name(), d.handoffPath())
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
