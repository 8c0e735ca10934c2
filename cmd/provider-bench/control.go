package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/bench"
)

// control serves the control API on a Unix socket.
type control struct {
	p        *platform
	path     string
	pprofDir string
	log      zerolog.Logger

	profMu sync.Mutex // guards prof
	prof   *os.File
}

// start listens in the background, so that a predecessor still holding
// the socket (a doctor restart's old child on its way out) does not delay
// the provider's start. stop closes it.
func (c *control) start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	srv := &http.Server{Handler: c.mux(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ln, err := c.listen(ctx)
		if err != nil {
			if ctx.Err() == nil {
				c.log.Error().Err(err).Str("socket", c.path).Msg("control API not served")
			}
			return
		}
		c.log.Info().Str("socket", c.path).Msg("control API serving")
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error().Err(err).Msg("control API")
		}
	}()
	return func() {
		cancel()
		srv.Close()
		<-done
		c.stopProfile()
	}
}

// listen binds the socket: a stale file is removed; a live predecessor is
// waited for (up to 30s).
func (c *control) listen(ctx context.Context) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if conn, err := net.DialTimeout("unix", c.path, time.Second); err == nil {
			conn.Close()
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%s: another control API answers there", c.path)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
			continue
		}
		if fi, err := os.Lstat(c.path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
			os.Remove(c.path)
		}
		ln, err := net.Listen("unix", c.path)
		if err != nil {
			return nil, err
		}
		return ln, os.Chmod(c.path, 0o600)
	}
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

func (c *control) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /inject", func(w http.ResponseWriter, r *http.Request) {
		var inj bench.Injection
		if err := json.NewDecoder(r.Body).Decode(&inj); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.p.setInjection(inj)
		c.log.Debug().Float64("rate", inj.Rate).Int("batch", inj.Batch).Int("threads", len(inj.Threads)).Msg("injection changed")
		writeJSON(w, c.p.stats())
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, c.p.stats())
	})
	mux.HandleFunc("POST /pprof/start", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		if c.pprofDir == "" || !profileName.MatchString(name) {
			http.Error(w, "needs the pprof_dir setting and ?name=[A-Za-z0-9._-]+", http.StatusBadRequest)
			return
		}
		if err := c.startProfile(filepath.Join(c.pprofDir, "provider-"+name+".cpu.pprof")); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /pprof/stop", func(w http.ResponseWriter, r *http.Request) {
		c.stopProfile()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func (c *control) startProfile(path string) error {
	c.profMu.Lock()
	defer c.profMu.Unlock()
	if c.prof != nil {
		return errors.New("a profile is running")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	c.prof = f
	return nil
}

func (c *control) stopProfile() {
	c.profMu.Lock()
	defer c.profMu.Unlock()
	if c.prof == nil {
		return
	}
	pprof.StopCPUProfile()
	c.prof.Close()
	c.prof = nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
