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
// overwritten.
func LoadOrCreateSecret(path string) (string, error) {
	secret, err := ReadSecret(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return secret, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create state dir: %w", err)
	}
	buf := make([]byte, SecretBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	secret = base64.RawURLEncoding.EncodeToString(buf)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return ReadSecret(path) // lost a race with another creator
	}
	if err != nil {
		return "", fmt.Errorf("create secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("write secret %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("sync secret %s: %w", path, err)
	}
	return secret, f.Close()
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
