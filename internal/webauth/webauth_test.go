package webauth

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func testGuard(t *testing.T) *Guard {
	t.Helper()
	g, err := New(Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4711}, Token: "the-token", Cookie: "cb_test"})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// session returns a valid session cookie, got the way a browser does.
func session(t *testing.T, g *Guard) *http.Cookie {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "http://127.0.0.1:4711/?token=the-token&room=5", nil)
	g.Page(http.NotFoundHandler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/?room=5" {
		t.Fatalf("token exchange: %d, Location %q", rec.Code, rec.Header().Get("Location"))
	}
	cs := rec.Result().Cookies()
	if len(cs) != 1 || cs[0].Name != "cb_test" || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/" {
		t.Fatalf("session cookie: %+v", cs)
	}
	return cs[0]
}

func TestExchangeAndRefusals(t *testing.T) {
	g := testGuard(t)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("served")) })
	handlers := map[string]http.Handler{"page": g.Page(ok), "stream": g.Stream(ok), "action": g.Action(ok)}
	good := session(t, g)
	forged := &http.Cookie{Name: "cb_test", Value: NewToken()}
	const origin = "http://127.0.0.1:4711"

	for _, tc := range []struct {
		name    string
		kind    string
		method  string
		target  string
		cookie  *http.Cookie
		headers map[string]string
		want    int
	}{
		{name: "page with a session", kind: "page", method: "GET", target: "/", cookie: good, want: 200},
		{name: "page without a session", kind: "page", method: "GET", target: "/", want: 401},
		{name: "page with a forged session", kind: "page", method: "GET", target: "/", cookie: forged, want: 401},
		{name: "wrong token", kind: "page", method: "GET", target: "/?token=guess", want: 401},
		{name: "empty token", kind: "page", method: "GET", target: "/?token=", want: 401},
		{name: "another host (DNS rebinding)", kind: "page", method: "GET", target: "http://evil.example:4711/", cookie: good, want: 421},
		{name: "another port in Host", kind: "page", method: "GET", target: "http://127.0.0.1:4712/", cookie: good, want: 421},
		{name: "localhost is this listener", kind: "page", method: "GET", target: "http://localhost:4711/", cookie: good, want: 200},
		{name: "page asked for by another site", kind: "page", method: "GET", target: "/", cookie: good, headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, want: 403},
		{name: "page read by another origin", kind: "page", method: "GET", target: "/", cookie: good, headers: map[string]string{"Origin": "http://127.0.0.1:9999"}, want: 403},
		{name: "page POSTed", kind: "page", method: "POST", target: "/", cookie: good, headers: map[string]string{"Origin": origin}, want: 405},
		{name: "action from the page", kind: "action", method: "POST", target: "/api/x", cookie: good, headers: map[string]string{"Origin": origin}, want: 200},
		{name: "action without a session", kind: "action", method: "POST", target: "/api/x", headers: map[string]string{"Origin": origin}, want: 401},
		{name: "action without Origin", kind: "action", method: "POST", target: "/api/x", cookie: good, want: 403},
		{name: "action from another origin", kind: "action", method: "POST", target: "/api/x", cookie: good, headers: map[string]string{"Origin": "http://127.0.0.1:9999"}, want: 403},
		{name: "action from another site", kind: "action", method: "POST", target: "/api/x", cookie: good, headers: map[string]string{"Origin": origin, "Sec-Fetch-Site": "same-site"}, want: 403},
		{name: "action by GET", kind: "action", method: "GET", target: "/api/x", cookie: good, headers: map[string]string{"Origin": origin}, want: 405},
		{name: "action with a token instead of a session", kind: "action", method: "POST", target: "/api/x?token=the-token", headers: map[string]string{"Origin": origin}, want: 401},
		{name: "stream with Origin", kind: "stream", method: "GET", target: "/api/events", cookie: good, headers: map[string]string{"Origin": origin}, want: 200},
		{name: "stream same-origin without Origin", kind: "stream", method: "GET", target: "/api/events", cookie: good, headers: map[string]string{"Sec-Fetch-Site": "same-origin"}, want: 200},
		{name: "stream without a session", kind: "stream", method: "GET", target: "/api/events", headers: map[string]string{"Origin": origin}, want: 401},
		{name: "stream from another origin", kind: "stream", method: "GET", target: "/api/events", cookie: good, headers: map[string]string{"Origin": "http://127.0.0.1:9999"}, want: 403},
		{name: "stream with neither Origin nor Sec-Fetch-Site", kind: "stream", method: "GET", target: "/api/events", cookie: good, want: 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := tc.target
			if strings.HasPrefix(target, "/") {
				target = "http://127.0.0.1:4711" + target
			}
			req := httptest.NewRequest(tc.method, target, nil)
			if tc.cookie != nil {
				req.AddCookie(tc.cookie)
			}
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			handlers[tc.kind].ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("%s %s: %d %q, want %d", tc.method, tc.target, rec.Code, rec.Body.String(), tc.want)
			}
			if tc.want == 200 && rec.Body.String() != "served" {
				t.Fatalf("body %q", rec.Body.String())
			}
			if tc.want != 200 && rec.Body.String() == "served" {
				t.Fatal("refused, yet the handler ran")
			}
			for _, h := range []string{"X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"} {
				if rec.Header().Get(h) == "" {
					t.Errorf("no %s", h)
				}
			}
		})
	}
}

func TestSessionExpires(t *testing.T) {
	now := time.Now()
	g, err := New(Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4711}, Token: "the-token", Cookie: "cb_test",
		SessionTTL: time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	c := session(t, g)
	serve := func() int {
		req := httptest.NewRequest("GET", "http://127.0.0.1:4711/", nil)
		req.AddCookie(c)
		rec := httptest.NewRecorder()
		g.Page(http.NotFoundHandler()).ServeHTTP(rec, req)
		return rec.Code
	}
	if code := serve(); code != 404 { // through the guard to the handler
		t.Fatalf("fresh session: %d", code)
	}
	now = now.Add(time.Hour + time.Second)
	if code := serve(); code != 401 {
		t.Fatalf("expired session: %d, want 401", code)
	}
}

func TestConfigRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"not loopback", Config{Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}, Cookie: "c"}},
		{"no cookie name", Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}}},
		{"cookie name with a separator", Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Cookie: "a;b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cfg); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestListenFallsBack(t *testing.T) {
	taken, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	ln, err := Listen(port)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)
	if addr.Port == port || !addr.IP.IsLoopback() {
		t.Fatalf("listened on %v with %d taken", addr, port)
	}
	if p := DerivedPort("default", 27000, 400); p != DerivedPort("default", 27000, 400) || p < 27000 || p >= 27400 {
		t.Fatalf("derived port %d", p)
	}
	g := testGuard(t)
	u, _ := url.Parse(g.URL("/"))
	if u.Host != "127.0.0.1:4711" || u.Query().Get("token") != "the-token" {
		t.Fatalf("URL %s", g.URL("/"))
	}
}
