package webauth

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The fuzz target's seed corpus is in testdata/fuzz/FuzzGuard; run it with
// go test -fuzz=FuzzGuard ./internal/webauth.

const fuzzToken = "fuzz-access-token-0123456789abcdefghijkl"

// FuzzGuard sends the guard a request made of fuzzed parts (method, the
// request target, Host, the session cookie, Origin, Sec-Fetch-Site) under
// each policy: the security headers are always set; the handler is reached
// only by the listener's Host with the session minted for the access
// token, from the page's own origin as the policy asks; a session is
// minted only for the exact token, and its redirect stays on this page
// with the token gone from the address.
func FuzzGuard(f *testing.F) {
	f.Add("GET", "/chat?token="+fuzzToken, "127.0.0.1:8080", "", "", "", true, uint8(0))
	f.Add("GET", "//evil.example/?token="+fuzzToken, "127.0.0.1:8080", "", "", "", false, uint8(0))
	f.Add("GET", "/\\evil.example/?token="+fuzzToken, "127.0.0.1:8080", "", "", "", false, uint8(0))
	f.Add("POST", "/api/send", "localhost:8080", "", "http://127.0.0.1:8080", "same-origin", true, uint8(2))
	f.Add("GET", "/events", "127.0.0.1:8080", "", "", "same-origin", true, uint8(1))
	f.Add("GET", "/", "evil.example:8080", "forged", "http://evil.example", "cross-site", false, uint8(0))
	g, err := New(Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, Token: fuzzToken, Cookie: "cb"})
	if err != nil {
		f.Fatal(err)
	}
	// The one session there is: minted by the token, as the owner's
	// browser does.
	rec := httptest.NewRecorder()
	g.Page(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:8080/?token="+fuzzToken, nil))
	var session string
	for _, c := range rec.Result().Cookies() {
		if c.Name == "cb" {
			session = c.Value
		}
	}
	if session == "" {
		f.Fatal("no session minted")
	}
	f.Fuzz(func(t *testing.T, method, target, host, cookie, origin, site string, withSession bool, pol uint8) {
		u, err := url.ParseRequestURI(target)
		if err != nil || method == "" || strings.ContainsAny(method, " \t\r\n") {
			return // net/http would not read such a request
		}
		r := &http.Request{Method: method, URL: u, RequestURI: target, Host: host, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
		if withSession {
			cookie = session
		}
		if cookie != "" {
			r.Header.Set("Cookie", (&http.Cookie{Name: "cb", Value: cookie}).String())
		}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if site != "" {
			r.Header.Set("Sec-Fetch-Site", site)
		}
		reached := false
		h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })
		guarded := []http.Handler{g.Page(h), g.Stream(h), g.Action(h)}[pol%3]
		w := httptest.NewRecorder()
		guarded.ServeHTTP(w, r)
		res := w.Result()

		for _, hd := range []string{"X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy", "Cache-Control"} {
			if res.Header.Get(hd) == "" {
				t.Fatalf("no %s", hd)
			}
		}
		hostOK := host == "127.0.0.1:8080" || host == "localhost:8080"
		if reached {
			hasSession := false
			for _, c := range r.Cookies() {
				hasSession = hasSession || (c.Name == "cb" && c.Value == session)
			}
			switch {
			case !hostOK:
				t.Fatalf("reached with Host %q", host)
			case !hasSession:
				t.Fatalf("reached without the session (cookie %q)", cookie)
			case site == "cross-site" || site == "same-site":
				t.Fatalf("reached from Sec-Fetch-Site %q", site)
			case pol%3 == 2 && (method != http.MethodPost || origin != g.Origin()):
				t.Fatalf("an action reached by %s from Origin %q", method, origin)
			case pol%3 == 1 && origin != g.Origin() && !(origin == "" && site == "same-origin"):
				t.Fatalf("a stream reached from Origin %q, Sec-Fetch-Site %q", origin, site)
			case pol%3 == 0 && ((method != http.MethodGet && method != http.MethodHead) || (origin != "" && origin != g.Origin())):
				t.Fatalf("a page reached by %s from Origin %q", method, origin)
			}
		}
		minted := false
		for _, c := range res.Cookies() {
			minted = minted || c.Name == "cb"
		}
		if minted {
			if u.Query().Get("token") != fuzzToken || !hostOK {
				t.Fatalf("a session minted for token %q on Host %q", u.Query().Get("token"), host)
			}
			// A path of this page: not "//host" nor "/\\host", which
			// browsers take for another site.
			raw := res.Header.Get("Location")
			loc, err := url.Parse(raw)
			if err != nil || loc.Host != "" || loc.Scheme != "" || !strings.HasPrefix(raw, "/") ||
				strings.HasPrefix(raw, "//") || strings.HasPrefix(raw, "/\\") || loc.Query().Has("token") {
				t.Fatalf("redirect to %q after minting a session (target %q)", res.Header.Get("Location"), target)
			}
		}
	})
}
