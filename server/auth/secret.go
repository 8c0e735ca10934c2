// Package auth owns the supervisor's bearer secret: created once per profile,
// kept in a 0600 file, compared in constant time.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SecretBytes is the size of a secret before encoding.
const SecretBytes = 32

// ErrBadSecret reports a secret file whose content is not a secret.
var ErrBadSecret = errors.New("secret file does not hold a base64url secret of 32 bytes")

// LoadOrCreateSecret returns the secret in path, creating the file (mode
// 0600, its directory 0700) with a fresh random secret if it does not exist.
// An existing file with a wider mode or bad content is an error, never
// overwritten. Concurrent creators (supervisors started at the same
// instant) agree on one secret, and none reads it half written: the file is
// written and synced under a temporary name, then linked into place.
func LoadOrCreateSecret(path string) (string, error) {
	secret, err := ReadSecret(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return secret, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create state dir: %w", err)
	}
	buf := make([]byte, SecretBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	secret = base64.RawURLEncoding.EncodeToString(buf)
	tmp, err := os.CreateTemp(dir, ".secret-*")
	if err != nil {
		return "", fmt.Errorf("create secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(secret + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write secret %s: %w", path, err)
	}
	// CreateTemp made it 0600. link(2), unlike rename, never replaces an
	// existing file: whoever links first wins, the others read its secret.
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return ReadSecret(path)
	} else if err != nil {
		return "", fmt.Errorf("create secret %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil { // make the new name durable
		d.Sync()
		d.Close()
	}
	return secret, nil
}

// ReadSecret reads an existing secret file.
func ReadSecret(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("secret file %s has mode %#o; it must be readable by its owner only (chmod 600)", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	secret := strings.TrimSpace(string(b))
	if raw, err := base64.RawURLEncoding.DecodeString(secret); err != nil || len(raw) != SecretBytes {
		return "", fmt.Errorf("%s: %w", path, ErrBadSecret)
	}
	return secret, nil
}

// Equal compares a presented secret with the real one in constant time.
func Equal(presented, secret string) bool {
	return subtle.ConstantTimeCompare([]byte(presented), []byte(secret)) == 1
}
