package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/server/providers"
)

// checkTimeout bounds one provider's --check.
const checkTimeout = 10 * time.Second

// checkProviderSettings runs each provider's binary in check mode
// (provider/README.md, "Check mode") with the settings it would get at a
// start, and returns what they refused: each problem names
// providers.<name>.<key> when the provider named a key.
func checkProviderSettings(ctx context.Context, c *config, specs []providers.Spec, env []string) []problem {
	return runProviders(ctx, c, specs, env, contract.CheckFlag, checkTimeout)
}

// probeTimeout bounds one provider's --probe (the provider gives its look
// at the platform 15 s).
const probeTimeout = 20 * time.Second

// probeProviders runs each provider's binary in probe mode (--check, then
// one look at its platform: supervisord --check-config --online) and
// returns what they found wrong.
func probeProviders(ctx context.Context, c *config, specs []providers.Spec, env []string) []problem {
	return runProviders(ctx, c, specs, env, contract.ProbeFlag, probeTimeout)
}

// runProviders runs each provider's binary with flag (check or probe
// mode) and returns the problems they print.
func runProviders(ctx context.Context, c *config, specs []providers.Spec, env []string, flag string, timeout time.Duration) []problem {
	var probs []problem
	for _, spec := range specs {
		key := "providers." + spec.Name
		bin, err := providerBinary(spec)
		if err != nil {
			probs = append(probs, problem{line: c.line(key + ".binary"), key: key, why: err.Error()})
			continue
		}
		line, err := runCheck(ctx, bin, flag, timeout, spec, env)
		if err != nil {
			probs = append(probs, problem{line: c.line(key), key: key, why: err.Error()})
			continue
		}
		if line == "" {
			continue
		}
		if k, why, ok := settingLine(line); ok {
			probs = append(probs, problem{line: c.line(key + "." + k), key: key + "." + k, why: why})
		} else {
			probs = append(probs, problem{line: c.line(key), key: key, why: line})
		}
	}
	return probs
}

// keyed matches a check line that names a setting: "<key>: <why>".
var keyed = regexp.MustCompile(`^([a-z0-9_]+(?:\.[a-z0-9_]+)*): (.+)$`)

func settingLine(line string) (key, why string, ok bool) {
	m := keyed.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// providerBinary resolves the binary a provider would be started from:
// Binary if set, else provider-<name> beside this executable, else on
// PATH (server/providers resolves it the same way).
func providerBinary(spec providers.Spec) (string, error) {
	if spec.Binary != "" {
		if _, err := exec.LookPath(spec.Binary); err != nil {
			return "", fmt.Errorf("binary %s: %w", spec.Binary, errors.Unwrap(err))
		}
		return spec.Binary, nil
	}
	name := "provider-" + spec.Name
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no %s beside supervisord or on PATH: install it, or name its path with the provider's binary setting", name)
	}
	return p, nil
}

// runCheck runs bin with flag (--check or --probe) and the settings a
// start would write (the spec's settings, its name and a throwaway
// secret) and returns the line it printed: "" when it accepted them. An
// error means the check itself did not work (the binary would not run,
// or said nothing).
func runCheck(ctx context.Context, bin, flag string, timeout time.Duration, spec providers.Spec, env []string) (string, error) {
	settings := map[string]any{}
	for k, v := range spec.Settings {
		settings[k] = v
	}
	settings[contract.SettingsNameKey] = spec.Name
	settings[contract.SettingsSecretKey] = throwawaySecret()
	in, err := json.Marshal(settings)
	if err != nil {
		return "", fmt.Errorf("settings: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, flag)
	cmd.Env = append(env[:len(env):len(env)], contract.EnvName+"="+spec.Name)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Dir = "/"
	err = cmd.Run()
	line := firstLine(out.Bytes())
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "", nil
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s %s did not answer within %s", bin, flag, timeout)
	case !errors.As(err, &ee):
		return "", fmt.Errorf("%s %s: %w", bin, flag, err)
	case line != "":
		return line, nil
	}
	msg := fmt.Sprintf("%s %s refused the settings (%s) without saying why", bin, flag, ee.ProcessState)
	if tail := lastLine(errOut.Bytes()); tail != "" {
		msg += "; its last stderr line: " + tail
	}
	msg += " (does it implement " + flag + "? see provider/README.md)"
	return "", errors.New(msg)
}

func firstLine(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			return s
		}
	}
	return ""
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// throwawaySecret is a secret of the supervisor's shape for a check; no
// server ever accepts it.
func throwawaySecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
